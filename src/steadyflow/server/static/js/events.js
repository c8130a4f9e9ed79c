// How one stored event is drawn.

import { confirmationChip } from "./confirm.js";
import { h } from "./dom.js";

export function eventNodes(event) {
  const nodes = [];
  const side = event.author === "user" ? "user" : "agent";
  const parts = event.content?.parts ?? [];
  const text = parts.filter((p) => p.text && !p.thought).map((p) => p.text).join("");
  if (text) nodes.push(h("div", { class: `bubble ${side}` }, h("span", { class: "author" }, event.author), text));
  for (const part of parts) {
    const confirmation = confirmationChip(part);
    if (confirmation) {
      nodes.push(confirmation);
      continue;
    }
    if (part.function_call) {
      const call = part.function_call;
      nodes.push(h("div", { class: `chip call ${side}` }, `→ ${call.name}(${JSON.stringify(call.args)})`));
    }
    if (part.function_response) {
      const response = part.function_response;
      nodes.push(h("div", { class: `chip result ${side}` }, `← ${response.name}: ${JSON.stringify(response.response)}`));
    }
  }
  if (event.error_code || event.error_message) {
    nodes.push(h("div", { class: "bubble error" }, `${event.error_code ?? "error"}: ${event.error_message ?? ""}`));
  }
  return nodes;
}
