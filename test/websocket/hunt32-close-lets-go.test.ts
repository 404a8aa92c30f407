/**
 * `server.close()` with a conversation turn it runs still in a tool or
 * waiting on its model: past its 5 s bound it lets go of the turn as a
 * process exit would, but at once. The turn reads `interrupted` as soon as
 * close resolves (its lease given up: no waiting out the lease's 30 s), never
 * `stopped`; nothing more of it is written or paid here; and another server,
 * or a plain `conversation.turn(id)`, resumes it to its end with exactly-once
 * kept (the refund runs once overall, no model reply is paid twice). A
 * caller's call (no conversation) is stopped.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, readConversation, tool, Waiting } from "../../src/index.js";
import type { LanguageModel } from "../../src/lm/types.js";
import type { Store } from "../../src/store/types.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { dropSchema, freshSchema, NO_SERVER, SERVER_URL } from "../postgres/server.js";
import { deskReplies } from "./children/desk-replies.js";
import { keeper, until } from "./fixtures.js";

const keep = keeper();

/**
 * The desk on `store`, its turn waiting for the refund's approval. `hold`:
 * where the approved turn is held while the server closes: in the refund
 * (until its signal aborts) or in the model's last reply (until its signal
 * aborts); `holdAt` moves it. Replies are counted when paid (returned), refunds when started.
 */
async function heldDesk(store: Store, hold: "refund" | "model") {
  let paid = 0;
  let asked = 0;
  let refunds = 0;
  let holding: "refund" | "model" | null = hold;
  const replies = deskReplies(() => paid++);
  const untilAborted = (signal: AbortSignal | undefined) =>
    new Promise((_r, reject) => signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted")), { once: true }));
  const lm: LanguageModel = {
    specificationVersion: replies.specificationVersion,
    provider: "scripted",
    model: "held",
    nativeTools: true,
    async generate(request, options) {
      asked++;
      const last = request.messages.filter((m) => m.role === "tool").length >= 2;
      if (holding === "model" && last) await untilAborted(options?.signal);
      return replies.generate(request, options);
    },
  };
  const findOrder = tool("find_order", { description: "The order.", input: { order_id: z.string() }, effects: "reads" }, () => ({ status: "lost" }));
  const refund = tool(
    "refund",
    { description: "Refund.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    async (_i, ctx) => {
      refunds++;
      if (holding === "refund") await untilAborted(ctx.signal);
      return "refunded";
    },
  );
  const fn = ai("desk", { description: "Refund lost orders.", input: { message: z.string() }, tools: [findOrder, refund] }).using({ lm });
  const err = await fn
    .conversation("sam", { store, approve: "changes" })
    .send("Refund A-1042.")
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Waiting);
  return {
    fn,
    paid: () => paid,
    asked: () => asked,
    refunds: () => refunds,
    /** Holds the turn there from now (null: nowhere). */
    holdAt: (where: "refund" | "model" | null) => {
      holding = where;
    },
  };
}

/** Approves the waiting refund through a server, then closes that server while the turn is held where `held` says. */
async function approveThenClose(store: Store, d: Awaited<ReturnType<typeof heldDesk>>, held: () => boolean) {
  const server = await serve({ store, programs: [d.fn], keys: ["k1"], port: 0 });
  const app = keep(await connect(server.url, { key: "k1", reconnect: false }));
  const [w] = await app.waiting();
  const approved = Promise.resolve(app.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).then(
    () => null,
    (e: unknown) => e,
  );
  await until(held, 5000);
  const started = Date.now();
  await server.close();
  return { took: Date.now() - started, approved, turn: w!.turn };
}

/** Nothing of the turn is written after close resolved, nor paid. */
async function stillAfterClose(store: Store, d: Awaited<ReturnType<typeof heldDesk>>) {
  const length = (await store.read("sam")).length;
  const paid = d.paid();
  await new Promise((r) => setTimeout(r, 500));
  expect((await store.read("sam")).length).toBe(length);
  expect(d.paid()).toBe(paid);
}

describe("server.close() lets go of the conversation turns it runs (resumable elsewhere, never stopped)", () => {
  it("a turn held in its refund: interrupted at once with the refund unfinished; another server resumes it, the refund ran once", async () => {
    const store = memoryStore();
    const d = await heldDesk(store, "refund");
    const { took, approved, turn } = await approveThenClose(store, d, () => d.refunds() === 1);
    expect(took).toBeLessThan(12_000); // bounded: 5 s for turns, 1 s to let go (room for a loaded machine)
    // read as any process reads it, now: not stopped, and not running until the lease's 30 s ran out
    const read = readConversation(await store.read("sam"), { now: Date.now() }).turns.get(turn);
    expect(read?.state).toBe("interrupted");
    expect(read?.unfinished).toMatchObject([{ invocation: 2, name: "refund" }]);
    expect(await approved).toMatchObject({ code: "remote-closed" });
    await stillAfterClose(store, d);

    // another server (a rolling deploy's next host) resumes it: a person says what the refund did
    d.holdAt(null);
    const other = keep(await serve({ store, programs: [d.fn], keys: ["k1"], port: 0 }));
    const app = keep(await connect(other.url, { key: "k1", reconnect: false }));
    const outcome = await app.resume({ conversation: "sam", turn, results: { 2: "refunded" } });
    expect(outcome).toBe("The last tool said: refunded");
    expect(d.refunds()).toBe(1); // the changing tool ran once overall
    expect(d.paid()).toBe(3); // find_order's reply, refund's, the answer: none paid twice
  }, 30_000);

  it("a resume given results, held in its model's reply: let go too (interrupted, the result kept); a plain turn(id).resume() ends it", async () => {
    const store = memoryStore();
    const d = await heldDesk(store, "refund");
    const { turn } = await approveThenClose(store, d, () => d.refunds() === 1); // the refund left unfinished, as test 1
    d.holdAt("model"); // the answer's reply is held until its signal aborts
    const other = await serve({ store, programs: [d.fn], keys: ["k1"], port: 0 });
    const app = keep(await connect(other.url, { key: "k1", reconnect: false }));
    const resumed = Promise.resolve(app.resume({ conversation: "sam", turn, results: { 2: "refunded" } })).then(
      () => null,
      (e: unknown) => e,
    );
    await until(() => d.asked() === 3, 5000);
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(12_000);
    const read = readConversation(await store.read("sam"), { now: Date.now() }).turns.get(turn);
    expect(read).toMatchObject({ state: "interrupted", unfinished: [] }); // the person's result was kept
    expect(await resumed).toMatchObject({ code: "remote-closed" });
    await stillAfterClose(store, d);

    d.holdAt(null);
    const handle = await d.fn.conversation("sam", { store, approve: "changes" }).turn(turn);
    expect(await handle.resume()).toBe("The last tool said: refunded");
    expect(d.refunds()).toBe(1);
    expect(d.paid()).toBe(3);
  }, 30_000);

  it("a turn held in its model's reply: interrupted at once, nothing unfinished; a plain conversation.turn(id) resumes it", async () => {
    const store = memoryStore();
    const d = await heldDesk(store, "model");
    const { took, turn } = await approveThenClose(store, d, () => d.asked() === 3);
    expect(took).toBeLessThan(12_000);
    const read = readConversation(await store.read("sam"), { now: Date.now() }).turns.get(turn);
    expect(read).toMatchObject({ state: "interrupted", unfinished: [] });
    expect(d.paid()).toBe(2); // the reply in flight when close let go was never paid
    await stillAfterClose(store, d);

    d.holdAt(null);
    const handle = await d.fn.conversation("sam", { store, approve: "changes" }).turn(turn);
    expect(handle.state).toBe("interrupted");
    expect(await handle.resume()).toBe("The last tool said: refunded");
    expect(d.refunds()).toBe(1);
    expect(d.paid()).toBe(3);
  }, 30_000);

  it("a caller's call (no conversation) is stopped: nothing of it is saved to resume", async () => {
    const store = memoryStore();
    let aborted = false;
    const slow = tool("slow", { description: "Takes a while.", input: {}, effects: "reads" }, async (_i, ctx) => {
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      aborted = true;
      return "late";
    });
    const fn = ai("waits", { description: "Wait.", input: { message: z.string() }, tools: [slow] }).using({
      lm: scripted([{ toolCalls: [{ name: "slow", input: {} }] }, "done"]),
    });
    const server = await serve({ store, programs: [fn], keys: ["k1"], port: 0 });
    const app = keep(await connect(server.url, { key: "k1", reconnect: false }));
    const called = Promise.resolve(app.call("waits", { message: "go" }, { approvals: "caller" })).then(
      () => null,
      (e: unknown) => e,
    );
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 300));
    await server.close();
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(aborted).toBe(true);
    expect(await called).toBeInstanceOf(Error);
  }, 30_000);
});

describe.skipIf(NO_SERVER !== null)("server.close() lets go of a turn on PostgreSQL (its lock session says who lives)", () => {
  it("held in its model's reply: interrupted at once for a reader of another pool; a plain conversation.turn(id) there resumes it", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const storeA = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    const d = await heldDesk(storeA, "model");
    const { took, turn } = await approveThenClose(storeA, d, () => d.asked() === 3);
    expect(took).toBeLessThan(12_000);
    expect(d.paid()).toBe(2);
    await stillAfterClose(storeA, d);

    d.holdAt(null);
    const handle = await d.fn.conversation("sam", { store: storeB, approve: "changes" }).turn(turn);
    expect(handle.state).toBe("interrupted");
    expect(await handle.resume()).toBe("The last tool said: refunded");
    expect(d.refunds()).toBe(1);
    expect(d.paid()).toBe(3);
  }, 30_000);
});
