/**
 * FunctAI's published conversation vectors (`test/conformance/conversations/state-*.json`,
 * vendored unchanged: see `test/conformance/SOURCE.md`) through `readConversation`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readConversation, type ConversationState, type TurnInfo } from "../../src/records/index.js";

const dir = fileURLToPath(new URL("../conformance/conversations/", import.meta.url));
const files = readdirSync(dir).filter((f) => /^state-.*\.json$/.test(f)).sort();

interface StateCase {
  description: string;
  records: unknown[];
  now: string;
  expect: {
    states: Record<string, string>;
    head: string | null;
    next: ConversationState["next"];
    waiting: Record<string, number[]>;
    unfinished: Record<string, number[]>;
  };
}

/** Invocations by turn, turns with none left out (the cases' form). */
const byTurn = (turns: Map<string, TurnInfo>, pick: (t: TurnInfo) => { invocation: number }[]) =>
  Object.fromEntries(
    [...turns.values()].map((t) => [t.id, pick(t).map((x) => x.invocation)] as const).filter(([, list]) => list.length > 0),
  );

describe("conversation conformance (state-*.json)", () => {
  it("finds the published cases", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    const c = JSON.parse(readFileSync(join(dir, file), "utf8")) as StateCase;
    it(`${file}: ${c.description}`, () => {
      const state = readConversation(c.records, { now: c.now });
      expect(state.skipped).toEqual([]); // every published record reads
      expect(Object.fromEntries([...state.turns].map(([id, t]) => [id, t.state]))).toEqual(c.expect.states);
      expect(state.head).toBe(c.expect.head);
      expect(state.next).toEqual(c.expect.next);
      expect(byTurn(state.turns, (t) => t.waiting)).toEqual(c.expect.waiting);
      expect(byTurn(state.turns, (t) => t.unfinished)).toEqual(c.expect.unfinished);
      expect(state.length).toBe(c.records.length);
    });
  }
});
