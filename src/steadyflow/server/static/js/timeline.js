// An invocation's timeline, drawn from the trace stored in its invocation record:
// one row per provider attempt and per tool call on a shared time axis. Failed attempts
// are red and say their error type and status; the wait before a retry is a gap labelled
// with its delay and whether the provider's Retry-After set it. A tool call that asked a
// person for confirmation ends its step; the time until the next step is the person's,
// drawn as a span of its own (still open while the invocation waits).

import { api, paths } from "./api.js";
import { h, json, seconds, shortId, wallTime } from "./dom.js";

export async function renderTimeline(view, app, user, id, invocation) {
  let trace = null;
  let status = null;
  try {
    const record = await api.get(paths.invocation(app, user, id, invocation));
    trace = record.trace;
    status = record.status;
  } catch (error) {
    if (error.status !== 404) throw error;
  }
  if (!trace) {
    view.replaceChildren(h("p", { class: "empty" }, `No stored trace for invocation ${invocation}.`));
    return;
  }
  const waiting = status === "waiting";
  const waits = personWaits(trace);
  const last = waits[waits.length - 1];
  // A wait still open lasts until now: the axis reaches the present.
  const now = waiting && last ? Math.max(last.start, Date.now() / 1000 - trace.started_at) : 0;
  const span = Math.max(trace.duration ?? 0, now, ...trace.steps.map((s) => s.end ?? 0), 1e-6);
  const scale = (t) => `${((t / span) * 100).toFixed(3)}%`;
  const blocks = trace.steps.map((step, index) => {
    const block = stepBlock(step, scale, span, () => paths.stepRequest(app, user, id, invocation, step.number));
    const wait = waits.find((w) => w.step === index);
    return wait ? [block, personBlock(wait, scale, span, waiting)] : [block];
  });
  view.replaceChildren(
    h("h1", {}, `Invocation ${shortId(invocation)}`),
    summary(trace, waits, waiting, span),
    h("div", { class: "timeline" }, axis(span), blocks),
  );
}

// Each wait for a person: from the end of the step whose tool asked, to the next step.
function personWaits(trace) {
  const waits = [];
  trace.steps.forEach((step, index) => {
    const asked = step.tools.some((tool) => tool.short_circuit === "confirmation");
    if (!asked || step.end === undefined || step.end === null) return;
    const next = trace.steps[index + 1];
    waits.push({ step: index, start: step.end, end: next ? next.start : null });
  });
  return waits;
}

function personBlock(wait, scale, span, waiting) {
  const end = wait.end ?? span;
  const text = wait.end === null
    ? `waiting for a person · ${seconds(end - wait.start)} so far`
    : `a person answered after ${seconds(end - wait.start)}`;
  return h(
    "section",
    { class: `person-wait ${wait.end === null && waiting ? "open" : ""}` },
    h(
      "div",
      { class: "row person-row" },
      h("div", { class: "label" }, "wait for a person"),
      h("div", { class: "lane" }, bar("person", wait.start, end, scale, text), label(text, wait.start, end, span, scale, "person")),
    ),
  );
}

function summary(trace, waits, waiting, span) {
  const person = waits.reduce((total, w) => total + ((w.end ?? span) - w.start), 0);
  const facts = [
    ["status", waiting ? "waiting for a person" : trace.status],
    ["started", wallTime(trace.started_at)],
    ["duration", seconds(trace.duration)],
    ["budget used", `${trace.budget_used} of ${trace.budget_limit > 0 ? trace.budget_limit : "∞"} attempts`],
    ["tokens", `${trace.input_tokens} in · ${trace.output_tokens} out`],
  ];
  if (waits.length) facts.push(["a person took", waiting && waits[waits.length - 1].end === null ? `${seconds(person)} (still waiting)` : seconds(person)]);
  if (trace.cost !== undefined) facts.push(["cost", usd(trace.cost)]);
  if (trace.error_type) facts.push(["error", `${trace.error_type}: ${trace.error_message ?? ""}`]);
  return h("dl", { class: `summary ${waiting ? "waiting" : trace.status}` }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

// Costs are stored as exact decimal text (US dollars); shown to four places, six below a cent.
function usd(cost) {
  const amount = Number(cost);
  return `$${amount.toFixed(amount !== 0 && Math.abs(amount) < 0.01 ? 6 : 4)}`;
}

function axis(span) {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => h("span", { class: "tick", style: { left: `${f * 100}%` } }, seconds(f * span)));
  return h("div", { class: "row axis" }, h("div", { class: "label" }, "time"), h("div", { class: "lane" }, ticks));
}

function stepBlock(step, scale, span, requestPath) {
  const title = `Step ${step.number} · ${(step.path ?? [step.agent]).join(" / ")}`;
  const notes = [step.model ?? "no model call"];
  if (step.input_tokens !== undefined) notes.push(`${step.input_tokens} in · ${step.output_tokens ?? 0} out tokens`);
  if (step.cost !== undefined) notes.push(usd(step.cost));
  if (step.finish_reason) notes.push(step.finish_reason);
  if (step.short_circuit) notes.push(`answered by ${step.short_circuit}`);
  const rows = [];
  step.attempts.forEach((attempt, index) => {
    if (index > 0) rows.push(waitRow(step.attempts[index - 1], attempt, scale, span));
    else if (attempt.paced) rows.push(pacedRow(attempt, scale, span));
    rows.push(attemptRow(attempt, scale, span));
  });
  step.tools.forEach((tool) => rows.push(toolRow(tool, scale, span)));
  return h(
    "section",
    { class: "step", "data-step": step.number },
    h("div", { class: "row step-head" }, h("div", { class: "label" }, title), h("div", { class: "lane" }, bar("step-span", step.start, step.end ?? span, scale))),
    rows,
    h("p", { class: "step-notes" }, notes.join(" · ")),
    step.attempts.length ? requestDetails(requestPath) : null,
  );
}

function bar(kind, start, end, scale, text) {
  return h("div", { class: `bar ${kind}`, style: { left: scale(start), width: scale(Math.max(end - start, 0)) }, title: text ?? "" });
}

// A bar's text: after its end, else before its start, else inside it (long bars).
function label(text, start, end, span, scale, kind = "") {
  let place = "after";
  if (end / span > 0.6) place = start / span >= 0.35 ? "before" : "inside";
  const style =
    place === "after"
      ? { left: scale(end) }
      : place === "before"
        ? { right: `calc(100% - ${scale(start)})` }
        : { left: scale(start), width: scale(end - start) };
  return h("span", { class: `bar-label ${kind} ${place}`, style }, text);
}

function attemptRow(attempt, scale, span) {
  const end = attempt.end ?? span;
  const failed = attempt.status === "error";
  const words = failed
    ? [attempt.error_type, attempt.status_code, attempt.outcome && attempt.outcome !== "retry" ? `gave up: ${attempt.outcome}` : null]
    : [attempt.status, seconds(end - attempt.start)];
  if (attempt.cost !== undefined) words.push(usd(attempt.cost));
  const text = words.filter((w) => w !== null && w !== undefined).join(" · ");
  return h(
    "div",
    { class: `row attempt-row ${failed ? "failed" : ""}`, "data-attempt": attempt.number },
    h("div", { class: "label" }, `attempt ${attempt.number}`),
    h("div", { class: "lane" }, bar(`attempt ${attempt.status}`, attempt.start, end, scale, text), label(text, attempt.start, end, span, scale, failed ? "failed" : "")),
  );
}

// The wait between a failed attempt and the next: a dashed gap labelled with the delay
// (and the part of it the pacer added, when RetryConfig.pacer held the retry).
function waitRow(previous, attempt, scale, span) {
  const from = previous.end ?? attempt.start;
  const why = attempt.delay_from_retry_after ? "set by Retry-After" : "backoff";
  const text = `wait ${seconds(attempt.delay)} · ${why}${attempt.paced ? ` · paced ${seconds(attempt.paced)}` : ""}`;
  return h(
    "div",
    { class: "row wait-row", "data-before-attempt": attempt.number },
    h("div", { class: "label" }, "retry wait"),
    h("div", { class: "lane" }, h("div", { class: "gap", style: { left: scale(from), width: scale(Math.max(attempt.start - from, 0)) } }), label(text, from, attempt.start, span, scale, "wait")),
  );
}

// A first attempt the pacer held until the provider's rate limit admitted it.
function pacedRow(attempt, scale, span) {
  const from = Math.max(attempt.start - attempt.paced, 0);
  const text = `paced ${seconds(attempt.paced)} · the provider's rate limit`;
  return h(
    "div",
    { class: "row wait-row paced-row", "data-before-attempt": attempt.number },
    h("div", { class: "label" }, "paced wait"),
    h("div", { class: "lane" }, h("div", { class: "gap", style: { left: scale(from), width: scale(Math.max(attempt.start - from, 0)) } }), label(text, from, attempt.start, span, scale, "wait")),
  );
}

function toolRow(tool, scale, span) {
  const end = tool.end ?? span;
  const asked = tool.short_circuit === "confirmation";
  const words = asked
    ? ["asked a person to confirm"]
    : [tool.status, tool.error_type, tool.short_circuit ? `by ${tool.short_circuit}` : null, seconds(end - tool.start)];
  const text = words.filter(Boolean).join(" · ");
  return h("div", { class: "row tool-row" }, h("div", { class: "label" }, tool.server ? `tool ${tool.name} · ${tool.server}` : `tool ${tool.name}`), h("div", { class: "lane" }, bar(`tool ${tool.status}`, tool.start, end, scale, text), label(text, tool.start, end, span, scale)));
}

function requestDetails(requestPath) {
  const body = h("pre", { class: "request" }, "loading…");
  const details = h("details", { class: "llm-request" }, h("summary", {}, "LlmRequest sent by this step"), body);
  details.addEventListener("toggle", async () => {
    if (!details.open || details.dataset.loaded) return;
    details.dataset.loaded = "yes";
    try {
      body.textContent = json(await api.get(requestPath()));
    } catch (error) {
      body.textContent = error.message;
      body.classList.add("missing");
    }
  });
  return details;
}
