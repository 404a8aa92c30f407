/**
 * A store failure stops a turn only when it is that turn's own journal failing (functai's call to its
 * conversation's store, marked as that conversation's: src/store/failures.ts). A tool whose body sends on another
 * conversation, and meets that conversation's store failing, failed as a tool does: the model is shown its error,
 * and the calling turn goes on. Before, the mark said only "some functai store call", so the calling turn stopped
 * interrupted, and the tool, which may have run, waited for a person to say what it returned.
 * A delegated turn is the caller's own work: its journal failing still stops the caller, resumable.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, delegate, memoryStore, tool } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "../engine/fixtures.js";

/** A desk whose `note` tool's body sends on conversation "notes" of `notesStore`. */
function noting(notesStore: ReturnType<typeof memoryStore>) {
  const keeper = ai("keeper", { description: "Keep a note.", input: { text: z.string() } });
  const note = tool("note", { description: "Keep a note.", input: { text: z.string() }, effects: "changes" }, async ({ text }) =>
    keeper.conversation("notes", { store: notesStore, lm: scripted(["kept"]) }).send({ text }),
  );
  return ai("desk", { description: "Help.", input: { q: z.string() }, tools: [note] });
}

const failsOn = (conversation: string) => (call: { conversation: string }) => (call.conversation === conversation ? "before-write" : undefined);

describe("whose store failure stops a turn", () => {
  it("another conversation's store failing inside a tool's body is that tool's error: the model is shown it and the turn ends done", async () => {
    const desk = noting(faultyStore(memoryStore(), { failOn: failsOn("notes") }));
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "note", input: { text: "call back" } }] }, "could not keep the note"]);
    expect(await desk.conversation("c", { store, lm }).send({ q: "note: call back" })).toBe("could not keep the note");
    const [[name, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(name).toBe("note");
    // the failing store's own message, as the tool's error
    expect(content).toMatch(/^Error: /);
    expect(content).toMatch(/faulty|store|append/i);
    const [turn] = await desk.conversation("c", { store }).turns();
    expect(turn!.state).toBe("done");
  });

  it("the same store object, another conversation in it failing: still the tool's error, the calling turn's journal is whole", async () => {
    const shared = faultyStore(memoryStore(), { failOn: failsOn("notes") });
    const desk = noting(shared);
    const lm = scripted([{ toolCalls: [{ name: "note", input: { text: "call back" } }] }, "could not keep the note"]);
    expect(await desk.conversation("c", { store: shared, lm }).send({ q: "note: call back" })).toBe("could not keep the note");
    expect(toolResults(lm.requests[1])[0]![1]).toMatch(/^Error: /);
    const [turn] = await desk.conversation("c", { store: shared.inner }).turns();
    expect(turn!.state).toBe("done");
  });

  it("a delegated turn's journal failing stops the caller, interrupted and resumable, never shown to the model as the tool's error", async () => {
    const refunds: number[] = [];
    const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      refunds.push(amount);
      return "refunded";
    });
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [refund] });
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [delegate(billing)] });
    // every append to a conversation other than the caller's (the delegated one) fails
    const store = faultyStore(memoryStore(), { failOn: (call) => (call.conversation !== "c" ? "before-write" : undefined) });
    const lm = scripted([{ toolCalls: [{ name: "billing", input: { request: "refund 39" } }] }, "done"]);
    const err = await desk
      .conversation("c", { store, lm })
      .send({ message: "refund A-1" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("store-io");
    expect(refunds).toEqual([]);
    // the desk's model was asked once: the failure was not shown to it as the delegate's error
    expect(lm.requests).toHaveLength(1);
    const [turn] = await desk.conversation("c", { store: store.inner }).turns();
    expect(turn!.state).toBe("interrupted");
  });
});
