/**
 * `ctx.idempotencyKey` is the same for a tool call's first run and for the
 * rerun a person asks for, across processes: a child is SIGKILLed inside a
 * changing tool, and this process reruns it through the public API.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { spawnScript } from "../store/fs-children.js";
import { keyedDesk, LEASE, PAY_CALL } from "./children/keyed.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const KEY = /^[0-9a-f-]{36}\.[0-9a-z]{22}$/;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-key-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ctx.idempotencyKey", () => {
  it("a run killed inside a changing tool and its rerun in another process see the same key", async () => {
    const child = spawnScript(fileURLToPath(new URL("./children/keyed.ts", import.meta.url)), [dir]);
    const first = (await child.line((l) => l.startsWith("key "))).slice("key ".length);
    child.proc.kill("SIGKILL");
    await child.exited;
    expect(first).toMatch(KEY);

    const keys: string[] = [];
    const lm = scripted(["paid"]); // the first reply comes from the journal
    const chat = keyedDesk((key) => (keys.push(key), "paid 5")).conversation("keyed", { store: fsStore(dir, { lockStaleMs: 200 }), lm, lease: LEASE });
    let [turn] = await chat.turns();
    for (let i = 0; i < 100 && turn!.state !== "interrupted"; i++) {
      await sleep(50);
      await turn!.refresh();
    }
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((u) => u.name)).toEqual(["pay"]);
    expect(await turn!.resume({ rerun: [turn!.unfinished[0]!.invocation] })).toBe("paid");
    expect(keys).toEqual([first]);
    expect(lm.requests).toHaveLength(1);
    [turn] = await chat.turns();
    expect(turn!.state).toBe("done");
  });

  it("differs between tool calls, turns and plain calls", async () => {
    const keys: string[] = [];
    const desk = keyedDesk((key) => (keys.push(key), "ok"));
    const twice = { toolCalls: [{ name: "pay", input: { amount: 1 } }, { name: "pay", input: { amount: 2 } }] };
    await desk("pay", { lm: scripted([twice, "done"]) });
    await desk("pay", { lm: scripted([PAY_CALL, "done"]) });
    const chat = desk.conversation("c", { store: memoryStore(), lm: scripted([PAY_CALL, "done", PAY_CALL, "done"]) });
    await chat.send("pay");
    await chat.send("pay");
    expect(keys).toHaveLength(5);
    for (const k of keys) expect(k).toMatch(KEY);
    expect(new Set(keys).size).toBe(5);
  });

  it("is the same value however it is read: again, from a copy of ctx, from its JSON", async () => {
    const seen: Record<string, unknown>[] = [];
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, (_input, ctx) => {
      const copy = { ...ctx };
      seen.push({ first: ctx.idempotencyKey, again: ctx.idempotencyKey, copy: copy.idempotencyKey, json: JSON.parse(JSON.stringify({ ...ctx, signal: null, frame: null })).idempotencyKey, keys: Object.keys(ctx) });
      return "paid";
    });
    const desk = ai("desk", { description: "Pay.", input: { message: z.string() }, tools: [pay] });
    await desk.conversation("copy", { store: memoryStore(), lm: scripted([PAY_CALL, "done"]) }).send("pay");
    expect(seen).toHaveLength(1);
    const [s] = seen;
    expect(s!.first).toMatch(KEY);
    expect([s!.again, s!.copy, s!.json]).toEqual([s!.first, s!.first, s!.first]);
    expect(s!.keys).toEqual(["invocation", "path", "site", "signal", "idempotencyKey", "frame"]);
  });
});
