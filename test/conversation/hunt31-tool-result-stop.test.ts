/**
 * Hunt 31: a tool call that stops its turn for a person is shown to the
 * plugins' `toolResult` hooks with the reason as its `error` (see
 * test/engine/hook-in-doubt.test.ts), and now with `needsPerson` saying so:
 * a plugin (otel()'s spans) can tell it from a tool that failed. The call
 * refused because its delegated conversation waits (conversation-busy)
 * started no delegated turn of its own: before, only the error's text told
 * it from a failure.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, delegate, memoryStore, tool, Waiting, type Plugin, type PluginToolResult, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const seeing = (results: PluginToolResult[]): Plugin => ({ name: "seeing", version: "1", hooks: { toolResult: (r) => void results.push(r) } });

describe("toolResult of a call that stops its turn for a person", () => {
  it("both calls of a delegate in one step (one waits, one refused as its conversation waits) say needsPerson, with what waits and where", async () => {
    const charges: string[] = [];
    const charge = tool(
      "charge",
      { description: "Charge.", input: { note: z.string() }, effects: "changes" },
      ({ note }) => (charges.push(note), "charged"),
    );
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [charge] });
    const desk = ai("desk", { description: "Ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      {
        toolCalls: [
          { name: "billing", input: { request: "A-1" } },
          { name: "billing", input: { request: "A-2" } },
        ],
      },
      (request) => ({ toolCalls: [{ name: "charge", input: { note: /A-\d/.exec(request.messages.at(-1)!.content)![0] } }] }),
    ]);
    const store = memoryStore();
    const results: PluginToolResult[] = [];
    await expect(desk.conversation("sam", { store, lm, approve: ["charge"], plugins: [seeing(results)] }).send("Charge both.")).rejects.toMatchObject(
      {
        code: "turn-waiting",
      },
    );
    expect(charges).toEqual([]);
    const [waits] = (await billing.conversation("sam.billing", { store, lm }).turns()).filter((t) => t.state === "waiting");
    const shown = results.filter((r) => r.name === "billing");
    expect(shown).toHaveLength(2);
    for (const r of shown) {
      expect(r.error).toMatch(/sam\.billing needs a person first/);
      expect(r.needsPerson).toEqual({ code: "turn-waiting", conversation: "sam.billing", approvals: waits!.waiting });
    }
  });

  it("a delegate call whose delegated turn may have charged (its process died in the tool) says needsPerson turn-unfinished, and the caller's resume is no Waiting", async () => {
    const state = { dead: false };
    const charges: string[] = [];
    const charge = tool("charge", { description: "Charge.", input: { note: z.string() }, effects: "changes" }, ({ note }) => {
      charges.push(note);
      state.dead = true; // the power goes out right after charging
      throw new Error("the process died");
    });
    const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [charge] });
    const desk = ai("desk", { description: "Ask billing.", input: { message: z.string() }, tools: [delegate(billing)] });
    const lm = scripted([
      { toolCalls: [{ name: "billing", input: { request: "A-1" } }] },
      { toolCalls: [{ name: "charge", input: { note: "A-1" } }] },
    ]);
    const store = memoryStore();
    const dying: Store = {
      ...store,
      read: (c, a) => (state.dead ? Promise.reject(new Error("dead")) : store.read(c, a)),
      append: (c, records, o) => (state.dead ? Promise.reject(new Error("dead")) : store.append(c, records, o)),
    };
    const lease = { renewMs: 1000, ttlMs: 50 };
    await expect(desk.conversation("sam", { store: dying, lm, lease }).send("Charge A-1.")).rejects.toThrow();
    expect(charges).toEqual(["A-1"]);
    await new Promise((r) => setTimeout(r, 80)); // the dead process's leases run out
    const results: PluginToolResult[] = [];
    const [caller] = await desk.conversation("sam", { store, lm: scripted([]), lease, plugins: [seeing(results)] }).turns();
    const e = await caller!.resume().catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "turn-unfinished" });
    expect(e).not.toBeInstanceOf(Waiting); // nothing waits for an approval: a person says what the charge did
    expect(results.map((r) => [r.name, r.needsPerson])).toEqual([["billing", { code: "turn-unfinished", approvals: [] }]]);
    expect(charges).toEqual(["A-1"]);
  });

  it("a call that ends with an error is no stop: needsPerson is not set", async () => {
    const broken = tool("broken", { description: "Breaks.", input: {}, effects: "reads" }, () => {
      throw new Error("down");
    });
    const desk = ai("desk", { description: "Try.", input: { message: z.string() }, tools: [broken] });
    const lm = scripted([{ toolCalls: [{ name: "broken", input: {} }] }, "It broke."]);
    const results: PluginToolResult[] = [];
    expect(await desk.conversation("sam", { store: memoryStore(), lm, plugins: [seeing(results)] }).send("go")).toBe("It broke.");
    expect(results).toHaveLength(1);
    expect(results[0]!.error).toMatch(/down/);
    expect("needsPerson" in results[0]!).toBe(false);
  });
});
