// Real Chromium: a turn's Web Lock is held while it runs and let go however it stops (done, failed, waiting, refused).
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { ai, isFunctaiError, tool, Waiting, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { desk, MESSAGE, oneTab } from "./desk.js";

const opened: { name: string; store: Store }[] = [];
afterEach(async () => {
  await Promise.all(opened.map((h) => h.store.close?.()));
  await Promise.all([...new Set(opened.map((h) => h.name))].map((n) => deleteDB(n)));
  opened.length = 0;
});

function open(): { name: string; store: Store } {
  const name = `functai-lock-${crypto.randomUUID()}`;
  const h = { name, store: indexedDBStore(name) };
  opened.push(h);
  return h;
}

/** The Web Locks of store `name`, held or asked for, by anyone of this origin. */
async function locksOf(name: string): Promise<string[]> {
  const { held = [], pending = [] } = await navigator.locks.query();
  return [...held, ...pending].flatMap((l) => (l.name?.startsWith(`functai:${name}:`) ? [l.name] : []));
}

/** The locks of store `name` once they are let go (a release reaches the lock manager a moment later): [] unless some stay for 2 s. */
async function locksLeft(name: string): Promise<string[]> {
  const end = performance.now() + 2_000;
  let left = await locksOf(name);
  while (left.length > 0 && performance.now() < end) {
    await new Promise((r) => setTimeout(r, 25));
    left = await locksOf(name);
  }
  return left;
}

describe("a turn's Web Lock", () => {
  it("is held while the turn runs, and let go when it ends done", async () => {
    const { name, store } = open();
    let seenWhileRunning: string[] = [];
    const look = tool("look", { description: "Looks.", input: {}, effects: "reads" }, async () => {
      seenWhileRunning = await locksOf(name);
      return "seen";
    });
    const fn = ai("looker", { description: "Look.", input: { q: z.string() }, tools: [look] });
    const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "done"]);
    expect(await fn.conversation("sam", { store, lm }).send({ q: "?" })).toBe("done");
    expect(seenWhileRunning).toHaveLength(1);
    expect(await locksLeft(name)).toEqual([]);
  });

  it("is let go when the turn waits for a person", async () => {
    const { name, store } = open();
    const { fn } = desk();
    const waiting = await fn.conversation("sam", { store, approve: "changes", lm: oneTab() }).send(MESSAGE).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    expect(await locksLeft(name)).toEqual([]);
  });

  it("is let go when the turn fails (a tool error raised), and the failure is kept", async () => {
    const { name, store } = open();
    const broken = tool("broken", { description: "Fails.", input: {}, effects: "changes" }, () => {
      throw new Error("out of order");
    });
    const fn = ai("breaker", { description: "Break.", input: { q: z.string() }, tools: [broken] });
    const lm = scripted([{ toolCalls: [{ name: "broken", input: {} }] }]);
    const e = await fn.conversation("sam", { store, lm, toolErrors: "raise" }).send({ q: "?" }).catch((x: unknown) => x);
    expect(isFunctaiError(e, "tool-failed")).toBe(true);
    const turn = (await fn.conversation("sam", { store }).turns()).at(-1)!;
    expect(turn.state).toBe("failed");
    expect(await locksLeft(name)).toEqual([]);
  });

  it("is let go by a send refused while the head waits (conversation-busy)", async () => {
    const { name, store } = open();
    const { fn } = desk();
    const chat = fn.conversation("sam", { store, approve: "changes", lm: oneTab() });
    expect(await chat.send(MESSAGE).catch((e: unknown) => e)).toBeInstanceOf(Waiting);
    const refused = await chat.send(MESSAGE).catch((e: unknown) => e);
    expect(isFunctaiError(refused, "conversation-busy")).toBe(true);
    expect(await locksLeft(name)).toEqual([]);
  });
});
