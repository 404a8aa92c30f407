/**
 * The memory store's records were shared objects: frozen "so that nobody
 * edits the journal", but only at their own keys. A reader that changed
 * something nested in a record it read changed it for every later reader,
 * and the engine hands such objects to user code: a turn resumed from the
 * store runs its tools on the recorded reply's tool calls, so a tool that
 * edited its own input (a `z.any()` one) edited the journal. The stores
 * that read their records back from JSON (IndexedDB, Postgres) give each
 * read objects of its own; the memory store now does too.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore } from "../../src/store/memory.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "./contract.js";

describe("memory store: what a read hands out", () => {
  it("a reader's edit below a record's own keys changes nothing a later read gives", async () => {
    const store = memoryStore();
    await store.append("c", [rec("turn", { inputs: { message: "Refund A-1042", items: ["A-1042"] } })]);
    const [first] = await store.read("c");
    const inputs = (first as unknown as { inputs: { message: string; items: string[] } }).inputs;
    try {
      inputs.message = "edited by a reader";
      inputs.items.push("B-2210");
    } catch {
      // (a store may refuse the edit; it must not keep it)
    }
    const [again] = await store.read("c");
    expect((again as unknown as { inputs: unknown }).inputs).toEqual({ message: "Refund A-1042", items: ["A-1042"] });
  });

  it("a resumed turn's tool that edits its own input runs as it did at first, and leaves the journal as it was", async () => {
    const store = memoryStore();
    const errors: string[] = [];
    const look = tool("look", { description: "Look.", input: { data: z.any() }, effects: "reads" }, ({ data }) => {
      try {
        (data as { list: number[] }).list.push(2); // its own input, as far as the tool can tell
      } catch (e) {
        errors.push(String(e));
        throw e;
      }
      return "seen";
    });
    const pay = tool("pay", { description: "Pay.", input: { n: z.number() }, effects: "changes" }, () => "paid");
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [look, pay] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "look", input: { data: { list: [1] } } },
          { name: "pay", input: { n: 1 } },
        ],
      },
    ]);
    await expect(desk.conversation("sam", { store, lm, approve: "changes" }).send("Pay 1")).rejects.toBeInstanceOf(Waiting);
    const asked = (r: { kind: string }): unknown => (r as unknown as { response: { toolCalls: { input: unknown }[] } }).response.toolCalls[0]!.input;
    const before = (await store.read("sam")).filter((r) => r.kind === "reply").map(asked);
    expect(before).toEqual([{ data: { list: [1] } }]);
    // another handle (another process, as far as the store can tell) answers: the step's tools run on the recorded reply
    const [turn] = await desk.conversation("sam", { store, lm: scripted(["Done."]) }).turns();
    expect(await turn!.approve({ by: "maria" })).toBe("Done.");
    expect(errors).toEqual([]);
    expect(asked((await store.read("sam")).find((r) => r.kind === "reply")!)).toEqual({ data: { list: [1] } });
  });
});
