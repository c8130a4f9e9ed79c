// The viewer's entry point: a hash router over its views, and the token prompt.

import { AuthError, api, setToken } from "./api.js";
import { renderConversation } from "./conversation.js";
import { h, shortId } from "./dom.js";
import { rememberUser, renderSessions } from "./sessions.js";
import { renderTimeline } from "./timeline.js";

const view = document.getElementById("view");
const crumbs = document.getElementById("crumbs");
let app = null;
let listAll = false;

async function route() {
  takeTokenFromLink();
  view.replaceChildren(h("p", { class: "loading", role: "status" }, "Loading…"));
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (app === null) {
      const served = await api.get("/apps");
      app = served.apps[0];
      listAll = served.list_all_sessions;
    }
    document.title = `${app} · steadyflow`;
    if (parts[0] === "sessions" && parts.length >= 3) {
      const [, user, id, , invocation] = parts;
      rememberUser(user);
      setCrumbs(user, id, invocation);
      if (invocation) await renderTimeline(view, app, user, id, invocation);
      else await renderConversation(view, app, user, id);
    } else if (parts[0] === "users" && parts[1]) {
      setCrumbs();
      await renderSessions(view, app, parts[1]);
    } else {
      setCrumbs();
      await renderSessions(view, app, null, listAll);
    }
  } catch (error) {
    if (error instanceof AuthError) tokenPrompt();
    else view.replaceChildren(h("p", { class: "error" }, error.message));
  }
}

function setCrumbs(user, id, invocation) {
  const items = [h("a", { href: "#/" }, app ?? "sessions")];
  if (id) items.push(h("a", { href: `#/sessions/${encodeURIComponent(user)}/${encodeURIComponent(id)}` }, `session ${shortId(id)}`));
  if (invocation) items.push(h("span", {}, `invocation ${shortId(invocation)}`));
  crumbs.replaceChildren(...items.flatMap((item, i) => (i ? [" / ", item] : [item])));
}

function tokenPrompt() {
  const input = h("input", { type: "password", name: "token", placeholder: "bearer token", required: true });
  view.replaceChildren(
    h(
      "form",
      { class: "token", onsubmit: (event) => { event.preventDefault(); setToken(input.value); route(); } },
      h("p", {}, "This server needs a bearer token. It is kept in this tab only."),
      input,
      h("button", { type: "submit" }, "Use token"),
    ),
  );
}

// `steadyflow serve` prints a viewer link carrying the token in its fragment
// (`/#token=...`): browsers never send a fragment, so the token stays out of the
// server's logs. Keep it for this tab and drop it from the address bar and history.
function takeTokenFromLink() {
  const match = location.hash.match(/^#token=([^&/]*)/);
  if (!match) return;
  setToken(decodeURIComponent(match[1]));
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
}

window.addEventListener("hashchange", route);
route();
