/**
 * ConversationReader: readConversation a record at a time. Fed a
 * conversation in any two pieces it says what readConversation says of the
 * whole; what it gave out before never changes under its holder.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, ConversationReader, memoryStore, readConversation, tool, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

/** A real conversation: a done turn, a turn that waited and was approved, one denied, one left waiting, a note of an unknown kind and a malformed record. */
async function conversation(): Promise<object[]> {
  const store = memoryStore();
  const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
  const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, () => "balance 10");
  const desk = ai("desk", { description: "Pay what is asked.", input: { ask: z.string() }, tools: [pay, look] });
  const call = (name: string, input: object) => ({ toolCalls: [{ id: `${name}-${Math.random()}`, name, input }] });
  const chat = desk.conversation("r", { store, approve: "changes" });
  expect(await chat.send("look", { lm: scripted([call("look", {}), "looked"]) })).toBe("looked");
  await expect(chat.send("pay 1", { lm: scripted([call("pay", { amount: 1 })]) })).rejects.toBeInstanceOf(Waiting);
  await store.append("r", [{ functai_conversation: 1, kind: "note-from-the-future", at: new Date().toISOString() }]);
  let [, second] = await desk.conversation("r", { store, lm: scripted(["paid one"]) }).turns();
  expect(await second!.approve({ by: "sam" })).toBe("paid one");
  await expect(chat.send("pay 2", { lm: scripted([call("pay", { amount: 2 })]) })).rejects.toBeInstanceOf(Waiting);
  [, , second] = await desk.conversation("r", { store, lm: scripted(["not paid"]) }).turns();
  expect(await second!.deny({ by: "sam", reason: "no" })).toBe("not paid");
  await expect(chat.send("pay 3", { lm: scripted([call("pay", { amount: 3 })]) })).rejects.toBeInstanceOf(Waiting);
  // malformed: the pure reader skips it and lists it (a conversation refuses it: test/conversation/malformed-records.test.ts)
  await store.append("r", [{ functai_conversation: 1, kind: "lease", at: "not a time", turn: second!.id }]);
  return store.read("r");
}

describe("ConversationReader", () => {
  it("fed in any two pieces, says what readConversation says of the whole", async () => {
    const records = await conversation();
    const now = Date.now();
    const whole = readConversation(records, { now });
    expect([...whole.turns.values()].map((t) => t.state)).toEqual(["done", "done", "done", "waiting"]);
    expect(whole.skipped).toHaveLength(1);
    for (let k = 0; k <= records.length; k++) {
      const reader = new ConversationReader().add(records.slice(0, k));
      expect(reader.state(now)).toEqual(readConversation(records.slice(0, k), { now }));
      reader.add(records.slice(k));
      expect(reader.state(now), `split at ${k}`).toEqual(whole);
      expect(reader.length).toBe(whole.length);
    }
  });

  it("what it gave out does not change as more records come", async () => {
    const records = await conversation();
    const now = Date.now();
    const k = records.findIndex((r) => (r as { kind: string }).kind === "waiting") + 1; // the second turn waits here
    const reader = new ConversationReader().add(records.slice(0, k));
    const early = reader.state(now);
    const frozen = structuredClone([...early.turns.values()]);
    reader.add(records.slice(k));
    expect(reader.state(now).turns.size).toBeGreaterThan(early.turns.size);
    expect([...early.turns.values()]).toEqual(frozen);
  });

  it("an ended turn no record came for since is given as the same object (opening 10k turns builds each once)", async () => {
    const records = await conversation();
    const reader = new ConversationReader().add(records);
    const [a, b] = [reader.state(Date.now()), reader.state(Date.now() + 60_000)];
    const first = [...a.turns.keys()][0]!;
    expect(b.turns.get(first)).toBe(a.turns.get(first));
    const last = [...a.turns.keys()].at(-1)!; // waiting: read anew each time
    expect(b.turns.get(last)).not.toBe(a.turns.get(last));
  });

  it("refuses a `now` that is not a time", () => {
    expect(() => new ConversationReader().state("soon")).toThrow(expect.objectContaining({ code: "input-invalid" }));
  });
});
