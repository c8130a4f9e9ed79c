// Waiting invocations: the confirmation requests a person answers from the viewer.
// A pause event holds one `steadyflow_request_confirmation` call per paused tool call;
// the answer is a FunctionResponse for that call id, sent through /run_sse like any
// message, and the same invocation continues on the server.

import { streamTurn } from "./api.js";
import { h } from "./dom.js";

export const REQUEST_CONFIRMATION = "steadyflow_request_confirmation";

// The requests of an invocation's events still without an answer, in order.
export function pendingRequests(events) {
  const answered = new Set();
  for (const event of events) {
    for (const part of event.content?.parts ?? []) {
      const response = part.function_response;
      if (response?.name === REQUEST_CONFIRMATION) answered.add(response.id);
    }
  }
  const pending = [];
  for (const event of events) {
    for (const part of event.content?.parts ?? []) {
      const call = part.function_call;
      if (call?.name === REQUEST_CONFIRMATION && !answered.has(call.id)) pending.push(call);
    }
  }
  return pending;
}

// How a request or an answer reads in the conversation (instead of a raw call chip).
export function confirmationChip(part) {
  const call = part.function_call;
  if (call?.name === REQUEST_CONFIRMATION) {
    const original = call.args?.original_call ?? {};
    return h("div", { class: "chip confirmation agent" }, `asks a person about ${original.name}(${JSON.stringify(original.args ?? {})})`);
  }
  const response = part.function_response;
  if (response?.name === REQUEST_CONFIRMATION) {
    const verdict = response.response?.confirmed ? "confirmed" : "declined";
    return h("div", { class: "chip confirmation user" }, `${verdict} by a person`);
  }
  return null;
}

// A card per pending request: what is asked, the call, Confirm and Decline buttons.
export function confirmationCards({ app, user, id, requests, onDone }) {
  return requests.map((call) => {
    const original = call.args?.original_call ?? {};
    const status = h("p", { class: "chat-status", role: "status" });
    const payload = call.args?.payload;
    const card = h(
      "div",
      { class: "confirm-card", "data-request": call.id },
      h("p", { class: "confirm-hint" }, call.args?.hint || "Confirm this tool call?"),
      h("code", {}, `${original.name}(${JSON.stringify(original.args ?? {})})`),
      payload === null || payload === undefined ? null : h("pre", { class: "confirm-payload" }, JSON.stringify(payload, null, 2)),
      h(
        "div",
        { class: "confirm-actions" },
        h("button", { type: "button", class: "confirm", onclick: () => answer(true) }, "Confirm"),
        h("button", { type: "button", class: "decline", onclick: () => answer(false) }, "Decline"),
      ),
      status,
    );
    async function answer(confirmed) {
      for (const button of card.querySelectorAll("button")) button.disabled = true;
      status.textContent = confirmed ? "confirming…" : "declining…";
      const message = {
        role: "user",
        parts: [{ function_response: { id: call.id, name: REQUEST_CONFIRMATION, response: { confirmed } } }],
      };
      let failed = null;
      try {
        await streamTurn(
          { app_name: app, user_id: user, session_id: id, new_message: message },
          { error: (data) => { failed = `${data.type} (${data.status_code}): ${data.message}`; } },
        );
      } catch (error) {
        failed = error.message;
      }
      if (failed) {
        status.classList.add("failed");
        status.textContent = failed;
        for (const button of card.querySelectorAll("button")) button.disabled = false;
        return;
      }
      await onDone();
    }
    return card;
  });
}
