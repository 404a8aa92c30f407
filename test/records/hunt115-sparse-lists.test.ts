/**
 * Hunt 115: a list with a hole (`const rule = []; rule[1] = "refund"`) passed
 * the writers' fast check, which asked each element with `every` (it skips
 * holes), where the schema asks each index. JSON writes a hole as null, which
 * no reader takes: a turn sent with such an `approve` list was written, and
 * then its conversation could not be read at all (`store-corrupt`), for good.
 * Refused as it is made (`record-invalid`, nothing written), the conversation
 * stays as it was.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isFunctaiError } from "../../src/errors.js";
import { program } from "../../src/functions/program.js";
import { checkNewRecord, checkRecordToWrite } from "../../src/records/schema.js";
import { readConversation } from "../../src/records/read-conversation.js";
import { memoryStore } from "../../src/store/memory.js";

const base = { functai_conversation: 1, at: "2026-09-30T10:00:00.000Z", turn: "t1" } as const;
/** A list whose first place is a hole. */
const holed = <T>(value: T): T[] => {
  const list: T[] = [];
  list[1] = value;
  return list;
};

describe("hunt 115: a list with a hole is refused when written", () => {
  it("by the fast check as by the schema: a turn's approve rule, a waiting record's approvals", () => {
    const turn = { ...base, kind: "turn", parent: null, program: "p", inputs: {}, approve: holed("refund") };
    const waiting = { ...base, kind: "waiting", approvals: holed({ site: "desk#1", invocation: 1, path: "desk/refund", name: "refund" }) };
    for (const record of [turn, waiting]) {
      expect(checkNewRecord(record).ok, record.kind).toBe(false);
      expect(checkRecordToWrite(record), record.kind).toMatchObject({ ok: false });
    }
  });

  it("a send with such an approve list writes nothing, and the conversation reads on", async () => {
    const store = memoryStore();
    const settle = program("settle", { description: "Settle.", input: { order: z.string() } }, ({ order }) => `settled ${order}`);
    const chat = settle.conversation("sam", { store });
    expect(await chat.send("A-1")).toBe("settled A-1");
    // refused where the rule is given (settings-invalid, since hunt 118) or when the turn is written (record-invalid)
    const error = await Promise.resolve()
      .then(() => settle.conversation("sam", { store, approve: holed("refund") }).send("A-2"))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isFunctaiError(error), String(error)).toBe(true);
    expect(readConversation(await store.read("sam"), { now: Date.now() }).skipped).toEqual([]);
    expect((await chat.turns()).map((t) => t.state)).toEqual(["done"]);
    expect(await chat.send("A-3")).toBe("settled A-3");
  });
});
