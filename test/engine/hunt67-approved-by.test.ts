/**
 * An approve function's yes is kept as an `approval` record with `by: "function"`. The same answer must read the
 * same everywhere: on the first run, plugins' `toolResult` hooks (`approved.by`) and the stream's `approved`
 * event said `null`, and after a resume (the answer read back from the records) the hook said `"function"`: a
 * trace or an audit plugin told two stories about one answer.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { firstStartedFault } from "../fixtures/first-started-fault.js";

type Rec = { kind: string; name?: string; state?: string; by?: unknown };

function setup() {
  const seen: unknown[] = [];
  const audit: Plugin = { name: "audit", version: "1", hooks: { toolResult: (r) => void seen.push(r.approved ?? null) } };
  const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
  const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
  const lm = () => scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
  return { seen, audit, fn, lm, approve: () => true };
}

describe("an approve function's yes", () => {
  it("reads the same in the records, the approved event and the hooks, on the first run", async () => {
    const { seen, audit, fn, lm, approve } = setup();
    const store = memoryStore();
    const s = fn.conversation("c1", { store, lm: lm(), approve, plugins: [audit] }).stream("go");
    const events: unknown[] = [];
    for await (const e of s) if (e.type === "approved") events.push(e.by);
    expect(await s).toBe("done");
    const records = (await store.read("c1")) as unknown as Rec[];
    const kept = records.filter((r) => r.kind === "approval").map((r) => r.by);
    expect(kept).toEqual(["function"]);
    expect(events).toEqual(["function"]);
    expect(seen).toEqual([{ by: "function" }]);
  });

  it("reads the same after a resume", async () => {
    const { seen, audit, fn, lm, approve } = setup();
    const inner = memoryStore();
    // the batch with the tool's `started` is written, and the process loses its acknowledgement: the tool did not run
    const store = firstStartedFault(inner, "after-write");
    await expect(fn.conversation("c2", { store, lm: lm(), approve, plugins: [audit] }).send("go")).rejects.toMatchObject({ code: "store-io" });
    expect(seen).toEqual([]);
    // (the first reply was kept: the resumed turn asks only for the next)
    const next = scripted(["done"]);
    const [turn] = await fn.conversation("c2", { store: inner, lm: next, approve, plugins: [audit] }).turns();
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["pay"]);
    expect(await turn!.resume({ rerun: [1] })).toBe("done");
    expect(seen).toEqual([{ by: "function" }]);
    expect(next.requests).toHaveLength(1);
  });
});
