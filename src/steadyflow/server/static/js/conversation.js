// A session's conversation, one block per invocation, each linking to its timeline.

import { api, paths } from "./api.js";
import { chatBox } from "./chat.js";
import { confirmationCards, pendingRequests } from "./confirm.js";
import { h, seconds, shortId, wallTime } from "./dom.js";
import { eventNodes } from "./events.js";

export async function renderConversation(view, app, user, id) {
  const [session, records] = await Promise.all([
    api.get(paths.session(app, user, id)),
    api.get(paths.invocations(app, user, id)),
  ]);
  const byId = new Map(records.map((r) => [r.id, r]));
  const log = h("div", { class: "conversation" });
  const reload = () => renderConversation(view, app, user, id);
  for (const group of byInvocation(session.events)) {
    const record = byId.get(group.id);
    const block = invocationBlock(group, record, user, id);
    if (record?.status === "waiting") {
      block.classList.add("waiting");
      const requests = pendingRequests(group.events);
      block.querySelector("footer").before(...confirmationCards({ app, user, id, requests, onDone: reload }));
    }
    log.append(block);
  }
  const chat = chatBox({ app, user, id, log, onDone: reload });
  view.replaceChildren(
    h("h1", {}, `Session ${shortId(id)}`),
    h("p", { class: "meta" }, `user ${user} · ${session.revision} events · updated ${wallTime(session.last_update_time)}`),
    log,
    chat,
  );
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// Why a turn failed, from its record (or its trace): the error's type and message.
function failure(record, trace) {
  const type = record?.error_type ?? trace?.error_type;
  if (!type) return null;
  const message = record?.error_message ?? trace?.error_message ?? "";
  return `This turn failed: ${type}${message ? `: ${message}` : ""}`;
}

// One group per invocation, in the order each began: an invocation whose events are
// interleaved with another's (an answer arriving after a newer message) stays one card.
function byInvocation(events) {
  const groups = new Map();
  for (const event of events) {
    const group = groups.get(event.invocation_id);
    if (group) group.events.push(event);
    else groups.set(event.invocation_id, { id: event.invocation_id, events: [event] });
  }
  return [...groups.values()];
}

function invocationBlock(group, record, user, sessionId) {
  const trace = record?.trace ?? null;
  const block = h("section", { class: "invocation", "data-invocation": group.id });
  for (const event of group.events) block.append(...eventNodes(event));
  const href = `#/sessions/${encodeURIComponent(user)}/${encodeURIComponent(sessionId)}/invocations/${encodeURIComponent(group.id)}`;
  const summary = record?.status === "waiting"
    ? "waiting for a person"
    : trace
    ? `${trace.status} · ${count(trace.steps.length, "step")} · ${count(trace.steps.reduce((n, step) => n + step.attempts.length, 0), "attempt")} · ${seconds(trace.duration)}`
    : record ? `${record.status} · no stored trace yet` : "no stored trace";
  const why = failure(record, trace);
  if (why) block.append(h("p", { class: "bubble error failure" }, why));
  block.append(
    h("footer", {}, h("span", {}, `invocation ${shortId(group.id)} · ${summary}`), trace ? h("a", { class: "timeline-link", href }, "timeline →") : null),
  );
  return block;
}
