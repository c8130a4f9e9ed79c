// The sessions list: every user's sessions (with the operator token, or from this machine
// on a server without tokens) or one user's, and a form to start one. When every user's
// cannot be listed, the page asks whose sessions to show and offers the users this tab
// has seen: never a dead end.

import { api } from "./api.js";
import { h, shortId, wallTime } from "./dom.js";

const enc = encodeURIComponent;

export async function renderSessions(view, app, user, listAll = false) {
  if (!user && !listAll) {
    view.replaceChildren(
      h("h1", {}, `Sessions of ${app}`),
      h("p", { class: "ask-user" }, "Whose sessions? Enter a user id (listing every user's at once needs the operator token)."),
      userForm(),
      knownUsersList(),
      newSessionForm(app),
    );
    return;
  }
  const sessions = await api.get(user ? `/apps/${enc(app)}/users/${enc(user)}/sessions` : `/apps/${enc(app)}/sessions`);
  if (user) rememberUser(user);
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

const USERS_KEY = "steadyflow.users";

// The users this tab looked at, most recent first (kept in this tab only).
export function rememberUser(user) {
  const users = [user, ...knownUsers().filter((u) => u !== user)].slice(0, 8);
  sessionStorage.setItem(USERS_KEY, JSON.stringify(users));
}

function knownUsers() {
  try {
    const users = JSON.parse(sessionStorage.getItem(USERS_KEY) ?? "[]");
    return Array.isArray(users) ? users.filter((u) => typeof u === "string") : [];
  } catch {
    return [];
  }
}

function knownUsersList() {
  const users = knownUsers();
  if (!users.length) return null;
  return h(
    "div",
    {},
    h("p", {}, "Seen in this tab:"),
    h("ul", { class: "known-users" }, users.map((u) => h("li", {}, h("a", { href: `#/users/${enc(u)}` }, u)))),
  );
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
