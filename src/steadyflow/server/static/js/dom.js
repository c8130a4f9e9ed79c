// Small DOM helpers. Every piece of session data goes in as text, never as HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "style") Object.assign(el.style, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function seconds(value) {
  if (value === undefined || value === null) return "?";
  if (value < 0.001) return `${(value * 1e6).toFixed(0)} µs`;
  if (value < 1) return `${(value * 1000).toFixed(value < 0.01 ? 2 : 1)} ms`;
  return `${value.toFixed(value < 10 ? 2 : 1)} s`;
}

export function wallTime(epochSeconds) {
  return new Date(epochSeconds * 1000).toLocaleString();
}

export function shortId(id) {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

export function json(value) {
  return JSON.stringify(value, null, 2);
}
