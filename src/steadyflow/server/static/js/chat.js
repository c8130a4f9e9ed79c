// The chat box: sends a message through /run_sse and renders the answer as it streams.
// Partial events grow a "streaming" bubble; the complete event replaces it (only it is
// kept, as only it is stored); `done` reloads the conversation from the server.

import { streamTurn } from "./api.js";
import { eventNodes } from "./events.js";
import { h } from "./dom.js";

export function chatBox({ app, user, id, log, onDone }) {
  const input = h("input", { name: "message", placeholder: "Message the agent…", autocomplete: "off", required: true });
  const button = h("button", { type: "submit" }, "Send");
  const status = h("p", { class: "chat-status", role: "status" });
  const form = h("form", { class: "chat" }, input, button, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value;
    input.value = "";
    button.disabled = true;
    status.textContent = "streaming…";
    const turn = h("section", { class: "invocation live" }, h("div", { class: "bubble user" }, h("span", { class: "author" }, "user"), text));
    log.append(turn);
    try {
      await streamTurn({ app_name: app, user_id: user, session_id: id, new_message: text }, handlersFor(turn, status));
      if (!status.classList.contains("failed")) await onDone();
    } catch (error) {
      fail(status, error.message);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function handlersFor(turn, status) {
  let streaming = null;
  return {
    event(data) {
      if (data.partial) {
        if (!streaming) {
          streaming = h("div", { class: "bubble agent streaming" }, h("span", { class: "author" }, data.author), "");
          turn.append(streaming);
        }
        const text = (data.content?.parts ?? []).map((p) => p.text ?? "").join("");
        streaming.append(text);
        return;
      }
      if (streaming) streaming.remove();
      streaming = null;
      if (data.author !== "user") turn.append(...eventNodes(data));
    },
    done() {
      status.textContent = "";
    },
    error(data) {
      if (streaming) streaming.classList.add("broken");
      fail(status, `${data.type} (${data.status_code}): ${data.message}`);
    },
  };
}

function fail(status, message) {
  status.classList.add("failed");
  status.textContent = message;
}
