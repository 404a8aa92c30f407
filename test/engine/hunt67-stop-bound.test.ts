/**
 * A stop (an aborted signal, or STOP) while a tool ignores its `ctx.signal` is bounded (the lead's decision,
 * hunt 62): after STOP_GRACE_MS the call rejects `turn-aborted` and the turn's end is kept. A changing tool that
 * started and did not finish stays `started` (unfinished, for a person); a reading one is not recorded. A hung
 * tool that settles later in the same process writes nothing: the journal never gains a `done` after the end.
 * A plugin's `toolResult` hook that never answers is bounded the same way (the tool finished: it is kept `done`).
 *
 * The bound the tests race against is 20 s: the grace is 5 s, and this machine is shared by several test runs
 * (a loaded machine may be slow to fire timers); a stop that takes longer than that has hung.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { STOP_GRACE_MS } from "../../src/engine/stop-bound.js";
import { settleOrHang } from "./fixtures.js";

const BOUND_MS = 20_000;

/** A tool body that ignores its signal and settles only when `release` is called. */
function hanging() {
  let release!: (v: string) => void;
  let entered!: () => void;
  const started = new Promise<void>((r) => (entered = r));
  const body = () => {
    entered();
    return new Promise<string>((r) => (release = r));
  };
  return { body, started, release: (v: string) => release(v) };
}

describe("a stop while a tool ignores its signal", () => {
  it("is the same grace as server.close()", () => {
    expect(STOP_GRACE_MS).toBe(5_000);
  });

  it("a changing tool: the send rejects turn-aborted, the end is kept, the tool stays started, and its late result writes nothing", async () => {
    const h = hanging();
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, h.body);
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const controller = new AbortController();
    const chat = fn.conversation("c1", { store, lm });
    const sent = chat.send("go", { signal: controller.signal });
    await h.started;
    controller.abort();
    expect(await settleOrHang(sent, BOUND_MS)).toBe("turn-aborted");
    const records = (await store.read("c1")) as unknown as { kind: string; state?: string; name?: string }[];
    const tools = records.filter((r) => r.kind === "tool");
    expect(tools.map((r) => r.state)).toEqual(["started"]);
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    // the hung tool settles later, in this process: nothing more is written for it
    h.release("paid");
    await new Promise((r) => setTimeout(r, 300));
    const after = await store.read("c1");
    expect(after.length).toBe(records.length);
    expect(lm.requests).toHaveLength(1);
  });

  it("a reading tool is not recorded; a tool that honours its signal still stops at once", async () => {
    const h = hanging();
    const look = tool("look", { description: "Looks.", input: {}, effects: "reads" }, h.body);
    const quick = tool(
      "quick",
      { description: "Honours its signal.", input: {}, effects: "reads" },
      (_i, ctx) => new Promise<string>((_r, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true })),
    );
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look, quick] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "done"]);
    const controller = new AbortController();
    const sent = fn.conversation("c2", { store, lm }).send("go", { signal: controller.signal });
    await h.started;
    controller.abort();
    expect(await settleOrHang(sent, BOUND_MS)).toBe("turn-aborted");
    const records = (await store.read("c2")) as unknown as { kind: string }[];
    expect(records.filter((r) => r.kind === "tool")).toEqual([]);
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
    h.release("late");

    // the normal case stays fast: a tool that honours its signal ends the stop well before the grace
    const lm2 = scripted([{ toolCalls: [{ name: "quick", input: {} }] }, "done"]);
    const c2 = new AbortController();
    const t0 = Date.now();
    const quickSent = fn("go", { lm: lm2, signal: c2.signal });
    setTimeout(() => c2.abort(), 50);
    expect(await settleOrHang(quickSent, BOUND_MS)).toBe("turn-aborted");
    // (well under the grace even on a loaded machine: no wait for the bound)
    expect(Date.now() - t0).toBeLessThan(STOP_GRACE_MS - 1_000);
  });
});

describe("a stop while a plugin's toolResult hook never answers", () => {
  it("settles after the grace, and the tool that finished is kept done", async () => {
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    const hung: Plugin = {
      name: "exporter",
      version: "1",
      hooks: {
        toolResult: () => {
          asked();
          return new Promise<undefined>(() => {});
        },
      },
    };
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `paid ${amount}`);
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const controller = new AbortController();
    const sent = fn.conversation("c3", { store, lm, plugins: [hung] }).send("go", { signal: controller.signal });
    await wasAsked;
    controller.abort();
    expect(await settleOrHang(sent, BOUND_MS)).toBe("turn-aborted");
    const records = (await store.read("c3")) as unknown as { kind: string; state?: string; output?: unknown }[];
    expect(records.filter((r) => r.kind === "tool").map((r) => r.state)).toEqual(["started", "done"]);
    expect(records.find((r) => r.kind === "tool" && r.state === "done")?.output).toBe("paid 5");
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "stopped" });
  });
});
