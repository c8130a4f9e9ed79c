// The sessions list: every user's sessions (with the operator token) or one user's,
// and a form to start one.

import { ApiError, api } from "./api.js";
import { h, shortId, wallTime } from "./dom.js";

const enc = encodeURIComponent;

export async function renderSessions(view, app, user) {
  let sessions;
  try {
    sessions = await api.get(user ? `/apps/${enc(app)}/users/${enc(user)}/sessions` : `/apps/${enc(app)}/sessions`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    // Listing every user's sessions needs the operator token: offer one user's instead.
    view.replaceChildren(
      h("h1", {}, `Sessions of ${app}`),
      h("p", { class: "empty" }, "Listing every user's sessions needs the operator token. Look up one user's sessions:"),
      userForm(),
      newSessionForm(app),
    );
    return;
  }
  sessions.sort((a, b) => b.last_update_time - a.last_update_time);
  const rows = sessions.map((s) =>
    h(
      "tr",
      { "data-session": s.id },
      h("td", {}, h("a", { href: `#/sessions/${enc(s.user_id)}/${enc(s.id)}` }, shortId(s.id))),
      h("td", {}, s.user_id),
      h("td", { class: "num" }, s.revision),
      h("td", {}, wallTime(s.last_update_time)),
      h("td", { class: `status ${s.last_status ?? ""}` }, s.last_status ?? "–"),
      h("td", { class: "first-message" }, s.first_message ?? "–"),
    ),
  );
  const table = sessions.length
    ? h(
        "table",
        { class: "sessions" },
        h("thead", {}, h("tr", {}, h("th", {}, "session"), h("th", {}, "user"), h("th", { class: "num" }, "events"), h("th", {}, "last update"), h("th", {}, "last turn"), h("th", {}, "first message"))),
        h("tbody", {}, rows),
      )
    : h("p", { class: "empty" }, "No sessions yet: start one below, or through the API.");
  const title = user ? `Sessions of ${user} in ${app}` : `Sessions of ${app}`;
  view.replaceChildren(h("h1", {}, title), table, newSessionForm(app));
}

function userInput() {
  return h("input", { name: "user", placeholder: "user id", required: true, pattern: "[A-Za-z0-9][A-Za-z0-9_.:@\\-]{0,127}" });
}

function userForm() {
  const user = userInput();
  return h(
    "form",
    {
      class: "user-sessions",
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/users/${enc(user.value)}`;
      },
    },
    h("label", {}, "Sessions of ", user),
    h("button", { type: "submit" }, "Show"),
  );
}

function newSessionForm(app) {
  const user = userInput();
  return h(
    "form",
    {
      class: "new-session",
      onsubmit: async (event) => {
        event.preventDefault();
        const created = await api.post(`/apps/${encodeURIComponent(app)}/users/${encodeURIComponent(user.value)}/sessions`);
        location.hash = `#/sessions/${encodeURIComponent(created.user_id)}/${encodeURIComponent(created.id)}`;
      },
    },
    h("label", {}, "New session for ", user),
    h("button", { type: "submit" }, "Create"),
  );
}
