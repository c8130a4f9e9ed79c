// The HTTP API, with the optional bearer token kept for this browser tab only.

const TOKEN_KEY = "steadyflow.token";

export class AuthError extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

async function send(method, path, body) {
  const init = { method, headers: headers(body ? { "content-type": "application/json" } : {}) };
  if (body) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  if (response.status === 401) throw new AuthError("a bearer token is needed");
  const data = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const api = {
  get: (path) => send("GET", path),
  post: (path, body) => send("POST", path, body ?? {}),
  del: (path) => send("DELETE", path),
};

export const paths = {
  session: (app, user, id) =>
    `/apps/${enc(app)}/users/${enc(user)}/sessions/${enc(id)}`,
  invocations: (app, user, id) => `${paths.session(app, user, id)}/invocations`,
  invocation: (app, user, id, invocation) =>
    `${paths.session(app, user, id)}/invocations/${enc(invocation)}`,
  stepRequest: (app, user, id, invocation, step) =>
    `${paths.session(app, user, id)}/invocations/${enc(invocation)}/steps/${step}/request`,
};

function enc(part) {
  return encodeURIComponent(part);
}

// POST /run_sse and call handlers.event(data) for each event, then
// handlers.done(data) or handlers.error(data). Resolves when the stream ends.
export async function streamTurn(body, handlers) {
  const response = await fetch("/run_sse", {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify(body),
  });
  if (response.status === 401) throw new AuthError("a bearer token is needed");
  if (!response.ok) throw new ApiError(response.status, await response.json());
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      dispatch(buffer.slice(0, end), handlers);
      buffer = buffer.slice(end + 2);
    }
  }
}

function dispatch(block, handlers) {
  let kind = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) kind = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trim());
  }
  if (data.length && handlers[kind]) handlers[kind](JSON.parse(data.join("\n")));
}
