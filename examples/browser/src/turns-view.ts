/**
 * The turns of a conversation, with what a person can do about each: answer
 * a waiting turn (Approve / Deny), say what an unfinished tool did (it did
 * run: this is what it returned; or run it again), abandon. Rows are keyed
 * by turn and rebuilt only when the turn changed, so a half-typed answer
 * survives the refreshes.
 */
import type { Turn } from "functai";
import { h, json } from "./dom.js";

export interface TurnActions {
  approve(turn: string, approval: string): void;
  deny(turn: string, approval: string, reason: string): void;
  /** Every unfinished tool has an answer: resume with these. */
  resume(turn: string, answers: { results: Record<number, string>; rerun: number[] }): void;
  abandon(turn: string): void;
  /** Draw again now. */
  refresh(): void;
  /** A failed turn's saved error, as a sentence. */
  explain(error: unknown): string;
}

type Choice = { result: string } | "rerun";

export class TurnsView {
  readonly #rows = new Map<string, { sig: string; el: HTMLElement }>();
  /** Per turn, the unfinished tools a person answered so far (by invocation). */
  readonly #choices = new Map<string, Map<number, Choice>>();
  constructor(readonly list: HTMLElement, readonly actions: TurnActions, readonly busy: ReadonlySet<string>) {}

  render(turns: readonly Turn[]): void {
    const seen = new Set<string>();
    const els = turns.map((turn) => {
      seen.add(turn.id);
      const sig = json([turn.state, turn.waiting.map((a) => a.id), turn.unfinished.map((u) => u.invocation), turn.value, turn.error, this.busy.has(turn.id), [...(this.#choices.get(turn.id) ?? [])]]);
      const row = this.#rows.get(turn.id);
      if (row?.sig === sig) return row.el;
      const el = this.#row(turn);
      this.#rows.set(turn.id, { sig, el });
      return el;
    });
    for (const id of [...this.#rows.keys()]) if (!seen.has(id)) this.#rows.delete(id);
    const current = [...this.list.children];
    if (current.length !== els.length || els.some((el, i) => current[i] !== el)) this.list.replaceChildren(...els);
  }

  #row(turn: Turn): HTMLElement {
    const busy = this.busy.has(turn.id);
    const message = String((turn.inputs as { message?: unknown }).message ?? json(turn.inputs));
    return h("li", { testid: "turn", "data-turn": turn.id, "data-state": turn.state, class: `turn st-${turn.state}` },
      h("div", { class: "turn-head" },
        h("span", { testid: "turn-state", class: "badge" }, turn.state),
        h("code", { class: "turn-id", title: turn.id }, turn.id.slice(-8)),
        h("span", { testid: "turn-message", class: "message" }, message)),
      turn.state === "done" ? h("div", { testid: "turn-answer", class: "answer" }, json(turn.value)) : null,
      turn.state === "failed" || turn.state === "stopped" ? h("div", { testid: "turn-error", class: "error" }, this.actions.explain(turn.error)) : null,
      ...turn.waiting.map((a) => {
        const reason = h("input", { testid: "deny-reason", placeholder: "reason (optional)", disabled: busy });
        return h("div", { testid: "approval", "data-approval": a.id, class: "approval" },
          h("span", {}, `${a.path} ${json(a.input)} `),
          h("button", { testid: "approve", disabled: busy, onclick: () => this.actions.approve(turn.id, a.id) }, "Approve"),
          h("button", { testid: "deny", disabled: busy, onclick: () => this.actions.deny(turn.id, a.id, reason.value) }, "Deny"),
          reason);
      }),
      ...(turn.state === "interrupted" ? turn.unfinished.map((u) => this.#unfinished(turn, u, busy)) : []),
      turn.state === "waiting" || turn.state === "interrupted"
        ? h("button", { testid: "abandon", class: "quiet", disabled: busy, onclick: () => this.actions.abandon(turn.id) }, "Abandon")
        : null,
      busy ? h("span", { testid: "turn-busy", class: "busy" }, "going on here…") : null);
  }

  #unfinished(turn: Turn, u: Turn["unfinished"][number], busy: boolean): HTMLElement {
    const chosen = this.#choices.get(turn.id)?.get(u.invocation);
    // "it did run" needs what it returned: the model reads it as the tool's result, so an empty one is refused
    const didRun = h("button", { testid: "did-run", disabled: true, title: "Type what it returned first", onclick: () => choose({ result: result.value.trim() }) }, "It did run: this is what it returned");
    const result = h("input", { testid: "result-input", placeholder: "what it returned (required)", disabled: busy, oninput: () => (didRun.disabled = busy || result.value.trim() === "") });
    result.value = typeof chosen === "object" ? chosen.result : "";
    didRun.disabled = busy || result.value.trim() === "";
    const choose = (choice: Choice): void => {
      if (choice !== "rerun" && choice.result === "") return; // refused: see didRun
      const choices = this.#choices.get(turn.id) ?? new Map<number, Choice>();
      choices.set(u.invocation, choice);
      this.#choices.set(turn.id, choices);
      if (turn.unfinished.every((t) => choices.has(t.invocation))) {
        this.#choices.delete(turn.id);
        const results: Record<number, string> = {};
        const rerun: number[] = [];
        for (const [inv, c] of choices) c === "rerun" ? rerun.push(inv) : (results[inv] = c.result);
        this.actions.resume(turn.id, { results, rerun });
      } else this.actions.refresh(); // shows the choice; the others still need one
    };
    return h("div", { testid: "unfinished", "data-invocation": u.invocation, "data-name": u.name, class: "unfinished" },
      h("div", {}, `${u.name} #${u.invocation} ${json(u.input)} started and may have run.`,
        chosen ? h("em", { testid: "chosen" }, ` chosen: ${chosen === "rerun" ? "run it again" : `it ran → ${chosen.result}`}`) : null),
      result,
      didRun,
      h("button", { testid: "run-again", disabled: busy, onclick: () => choose("rerun") }, "It did not: run it again"));
  }
}
