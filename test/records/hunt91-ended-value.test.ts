/**
 * Hunt 91: a `done` `ended` record with no `value` was read as the turn's
 * answer `undefined`, whatever its `outputs` said.
 *
 * A turn can legitimately end with no value (a program whose output is
 * `z.void()` or optional): the writer then writes `outputs: { result:
 * undefined }, value: undefined`, which a store keeps as `outputs: {}` and
 * no `value` (JSON leaves undefined out). So a missing `value` is the
 * answer `undefined` only when `outputs` holds no result either; a record
 * whose `value` was lost while its `outputs` still names a result, or that
 * has neither key, is damage: refused (`skipped`, `store-corrupt` in a
 * conversation), never read as an answer of `undefined`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkNewRecord, memoryStore, parseRecord, program, readConversation, type Store } from "../../src/index.js";

const NOW = "2026-09-30T10:00:00Z";
const at = "2026-09-30T09:00:00.000000Z";
const b = (seq: number) => ({ functai_conversation: 1, at, seq });
const turn = { ...b(1), kind: "turn", turn: "t1", parent: null, program: "v1", inputs: {} };
const ended = (fields: Record<string, unknown>) => ({ ...b(2), kind: "ended", turn: "t1", state: "done", ...fields });
const read = (end: Record<string, unknown>) => readConversation([turn, end], { now: NOW });

describe("hunt 91: a done ended record without its value", () => {
  it("is refused when its outputs still hold a result, or when it has no outputs either", () => {
    for (const damaged of [
      ended({ outputs: { result: "refunded 40 EUR" } }), // `value` lost
      ended({ outputs: { result: null } }),
      ended({}), // `value` and `outputs` lost
      ended({ usage: { input_tokens: 1, output_tokens: 2 } }),
      ended({ outputs: { answer: "x" } }), // another implementation's outputs, no value: not read as undefined
    ]) {
      const s = read(damaged);
      expect(
        s.skipped.map((x) => x.seq),
        JSON.stringify(damaged),
      ).toEqual([2]);
      expect(s.skipped[0]?.error).toMatch(/^ended record: .*value/);
      expect(s.turns.get("t1")?.ended).toBeNull();
      expect(parseRecord(damaged).ok).toBe(false);
    }
    // what the writer writes for an output that is undefined: as the store keeps it, and as the writer holds it
    for (const written of [ended({ outputs: {} }), ended({ outputs: { result: undefined }, value: undefined })]) {
      const s = read(written);
      expect(s.skipped).toEqual([]);
      expect(s.turns.get("t1")).toMatchObject({ state: "done", ended: { state: "done" } });
      expect(s.turns.get("t1")?.ended?.value).toBeUndefined();
    }
    // a value of null is a value; other ends carry none
    expect(read(ended({ value: null })).skipped).toEqual([]);
    for (const state of ["failed", "stopped", "abandoned"]) expect(read(ended({ state })).skipped).toEqual([]);
  });

  it("is refused when written (checkNewRecord), unless its outputs hold no result", () => {
    const { seq: _seq, ...fresh } = ended({ outputs: { result: "r" } });
    expect(checkNewRecord(fresh).ok).toBe(false);
    expect(checkNewRecord({ ...fresh, outputs: undefined }).ok).toBe(false);
    expect(checkNewRecord({ ...fresh, outputs: { result: undefined } }).ok).toBe(true);
    expect(checkNewRecord({ ...fresh, value: "r" }).ok).toBe(true);
  });
});

describe("hunt 91: as a user meets it", () => {
  const quiet = program("quiet", { description: "Log it.", input: { note: z.string() }, output: z.void() }, () => undefined);
  const say = program("say", { description: "Say it.", input: { note: z.string() } }, ({ note }) => `noted: ${note}`);

  it("a program whose output is undefined ends done, and reads so again", async () => {
    const store = memoryStore();
    expect(await quiet.conversation("q", { store }).send("x")).toBeUndefined();
    const [t] = await quiet.conversation("q", { store }).turns();
    expect(t).toMatchObject({ state: "done" });
    expect(t!.value).toBeUndefined();
    // and a done turn whose value the store lost is refused, never an answer of undefined
    const first = memoryStore();
    expect(await say.conversation("s", { store: first }).send("hi")).toBe("noted: hi");
    const damaged: Store = memoryStore();
    await damaged.append(
      "s",
      (await first.read("s")).map(({ seq: _seq, ...r }) => {
        if (r.kind !== "ended") return r;
        const { value: _value, ...rest } = r as Record<string, unknown>;
        return rest;
      }),
    );
    await expect(say.conversation("s", { store: damaged }).turns()).rejects.toMatchObject({
      code: "store-corrupt",
      message: expect.stringMatching(/ended record/),
    });
  });
});
