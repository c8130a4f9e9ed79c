// The sessions list: every user's sessions of the served app, and a form to start one.

import { api } from "./api.js";
import { h, shortId, wallTime } from "./dom.js";

export async function renderSessions(view, app) {
  const sessions = await api.get(`/apps/${encodeURIComponent(app)}/sessions`);
  sessions.sort((a, b) => b.last_update_time - a.last_update_time);
  const rows = sessions.map((s) =>
    h(
      "tr",
      { "data-session": s.id },
      h("td", {}, h("a", { href: `#/sessions/${encodeURIComponent(s.user_id)}/${encodeURIComponent(s.id)}` }, shortId(s.id))),
      h("td", {}, s.user_id),
      h("td", { class: "num" }, s.revision),
      h("td", {}, wallTime(s.last_update_time)),
    ),
  );
  const table = sessions.length
    ? h(
        "table",
        { class: "sessions" },
        h("thead", {}, h("tr", {}, h("th", {}, "session"), h("th", {}, "user"), h("th", { class: "num" }, "events"), h("th", {}, "last update"))),
        h("tbody", {}, rows),
      )
    : h("p", { class: "empty" }, "No sessions yet: start one below, or through the API.");
  view.replaceChildren(h("h1", {}, `Sessions of ${app}`), table, newSessionForm(app));
}

function newSessionForm(app) {
  const user = h("input", { name: "user", placeholder: "user id", required: true, pattern: "[A-Za-z0-9][A-Za-z0-9_.:@\\-]{0,127}" });
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
