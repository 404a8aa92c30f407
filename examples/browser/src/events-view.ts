/**
 * A turn's events as they stream in, one line each; text deltas join the
 * line before. Lines are numbered as shown, so the numbers do not jump where
 * deltas were joined.
 */
import type { TurnEvent } from "functai";
import { h, json } from "./dom.js";

function line(e: TurnEvent): string {
  switch (e.type) {
    case "started": return `started ${e.name}(${json(e.input)})`;
    case "state": return `state → ${e.state}`;
    case "request": return `request ${e.site}, step ${e.step}`;
    case "text": return e.delta;
    // the reply's own text is the model's raw reply (its form's tags and all): the answer's text streamed above
    case "reply": return e.toolCalls.length ? `reply: ${e.toolCalls.map((c) => `${c.name}(${json(c.input)})`).join(", ")}` : `reply: the answer (finish: ${e.finishReason})`;
    case "tool_call": return `tool_call #${e.invocation} ${e.name}(${json(e.input)}) · ${e.effects ?? "unsaid: changes"}`;
    case "tool_result": return `tool_result #${e.invocation} ${e.name} → ${e.error !== undefined ? `error: ${e.error}` : json(e.output)}`;
    case "approval": return `approval needed: ${e.approval.path} ${json(e.approval.input)}`;
    case "approved": return `${e.verdict === "yes" ? "approved" : "denied"} ${e.approval.path}${e.by ? ` by ${e.by}` : ""}${e.reason ? ` (${e.reason})` : ""}`;
    case "waiting": return `waiting for a person: ${e.approvals.map((a) => a.path).join(", ")} (saved: answer here or in another tab)`;
    case "interrupted": return `interrupted: ${e.reason}`;
    case "done": return `done: ${json(e.result)}`;
    case "failed": return `failed: ${e.error.code ?? ""} ${e.error.message}`;
  }
}

export class EventsView {
  #text: HTMLElement | null = null;
  #shown = 0;
  constructor(readonly list: HTMLElement) {}

  clear(): void {
    this.list.replaceChildren();
    this.#text = null;
    this.#shown = 0;
  }

  show(e: TurnEvent): void {
    if (e.type === "text" && this.#text) {
      this.#text.append(e.delta);
      return;
    }
    const li = h("li", { testid: "event", "data-type": e.type, class: `ev ev-${e.type}` }, h("span", { class: "seq" }, ++this.#shown), " ", line(e));
    this.#text = e.type === "text" ? li : null;
    this.list.append(li);
    li.scrollIntoView({ block: "nearest" });
  }

  /** A line of our own (an answer given here, an error). */
  note(text: string, kind = "note"): void {
    this.#text = null;
    this.list.append(h("li", { testid: "event", "data-type": kind, class: `ev ev-${kind}` }, text));
  }
}
