/**
 * Hunt 8, `serve` on two hosts over one PostgreSQL database (in process):
 * a companion on server B watches a turn that runs on server A. README
 * "Remote approval over WebSocket" / DESIGN "Remote approval over
 * WebSocket": each server lists every waiting turn, live; `status` gives a
 * turn's state now. Then malformed frames and wrong turn ids through either
 * server: protocol.ts says every request is answered by one `reply` or one
 * `error` with its id, errors are `{ code, message }`.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "../websocket/fixtures.js";
import { until } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const keep = keeper();
const DONE = "The last tool said: refunded 39.00 for A-1042";

async function setup() {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema).then(() => undefined) });
  const storeA = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const a = await waitingDesk(["sam"], { store: storeA, gate });
  const b = await waitingDesk([], { store: storeB });
  const serverA = keep(await serve({ store: storeA, programs: [a.served], keys: ["k1"], port: 0, pollMs: 50 }));
  const serverB = keep(await serve({ store: storeB, programs: [b.served], keys: ["k1"], port: 0, pollMs: 50 }));
  return { a, b, release, serverA, serverB };
}

/** A raw socket that said hello: sends frames, collects what comes back. */
async function raw(url: string) {
  const ws = new WebSocket(url);
  const got: Record<string, unknown>[] = [];
  ws.on("message", (d) => got.push(JSON.parse(String(d)) as Record<string, unknown>));
  await new Promise<void>((r, j) => ws.once("open", () => r()).once("error", j));
  ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key: "k1" }));
  await until("welcome", () => got.some((m) => m.type === "welcome"));
  keep({ close: async () => ws.close() });
  /** Sends a frame, returns the reply or error with that id (or, for id null, the next error without one). */
  const ask = async (frame: string, id: string | null): Promise<Record<string, unknown>> => {
    const from = got.length;
    ws.send(frame);
    const mine = (m: Record<string, unknown>) => (m.type === "reply" || m.type === "error") && m.id === id;
    await until(`an answer to ${frame.slice(0, 80)}`, () => got.slice(from).some(mine));
    return got.slice(from).find(mine)!;
  };
  return { ask };
}

describe.skipIf(NO_SERVER !== null)("serve on two hosts: a turn run on A, watched through B (PostgreSQL)", () => {
  it("approved through A and held in its refund: B's companion reads it running and is pushed a list without it; released, B reads it done with A's answer, in bounded time", async () => {
    const { a, b, release, serverA, serverB } = await setup();
    const cA = keep(await connect(serverA.url, { key: "k1" }));
    const cB = keep(await connect(serverB.url, { key: "k1" }));
    const lists: WaitingEntry[][] = [];
    cB.on("waiting", (l) => lists.push(l));
    const [w] = await cB.waiting();
    expect(w).toMatchObject({ conversation: "sam", state: "waiting" });
    const ref = { conversation: "sam", turn: w!.turn };
    const approved = cA.approve({ ...ref, by: "maria" });
    await until("B reads it running", async () => (await cB.status(ref)).state === "running");
    await until("B pushes a list without it", () => lists.at(-1)?.every((e) => e.turn !== ref.turn) === true);
    expect(a.REFUNDS).toHaveLength(0);
    release();
    expect(await approved).toBe(DONE);
    const t0 = Date.now();
    await until("B reads it done", async () => (await cB.status(ref)).state === "done", 10_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await cB.status(ref)).toMatchObject({ state: "done", value: DONE, approvals: [], unfinished: [] });
    expect((await cB.waiting()).filter((e) => e.turn === ref.turn)).toEqual([]);
    // B cannot answer it again nor run it: refused with a code, nothing runs
    await expect(Promise.resolve(cB.approve({ ...ref, by: "late" }))).rejects.toMatchObject({ code: expect.stringMatching(/^(approval-answered|turn-state)$/) });
    await expect(Promise.resolve(cB.resume(ref))).rejects.toMatchObject({ code: "turn-state" });
    expect(a.REFUNDS.length + b.REFUNDS.length).toBe(1);
  }, 60_000);

  it("malformed frames and wrong turn ids through either server: each gets an error with a code (with its id when it had one); the waiting turn is untouched and still runs once", async () => {
    const { a, b, release, serverA, serverB } = await setup();
    release();
    const cA = keep(await connect(serverA.url, { key: "k1" }));
    const [w] = await cA.waiting();
    const turn = w!.turn;
    for (const url of [serverA.url, serverB.url]) {
      const { ask } = await raw(url);
      expect(await ask("{not json", null)).toMatchObject({ type: "error", code: "remote-protocol" });
      expect(await ask(JSON.stringify({ type: "approve", id: "x1", conversation: "sam" }), "x1")).toMatchObject({ type: "error", code: "remote-protocol" });
      expect(await ask(JSON.stringify({ type: "approve", id: "x2", conversation: "../sam", turn }), "x2")).toMatchObject({ type: "error", code: "remote-protocol" });
      expect(await ask(JSON.stringify({ type: "approve", id: "x3", conversation: "sam", turn: "no-such-turn", by: "m" }), "x3")).toMatchObject({ type: "error", code: "turn-state" });
      expect(await ask(JSON.stringify({ type: "approve", id: "x4", conversation: "nobody", turn, by: "m" }), "x4")).toMatchObject({ type: "error", code: "turn-state" });
      expect(await ask(JSON.stringify({ type: "status", id: "x5", conversation: "sam", turn: "no-such-turn" }), "x5")).toMatchObject({ type: "error", code: "turn-state" });
      expect(await ask(JSON.stringify({ type: "resume", id: "x6", conversation: "sam", turn: "no-such-turn" }), "x6")).toMatchObject({ type: "error", code: "turn-state" });
      expect(await ask(JSON.stringify({ type: "abandon", id: "x7", conversation: "sam", turn: `${turn}x` }), "x7")).toMatchObject({ type: "error", code: "turn-state" });
      const unknown = await ask(JSON.stringify({ type: "approve", id: "x8", conversation: "sam", turn, approval: "no-such-approval", by: "m" }), "x8");
      expect(unknown).toMatchObject({ type: "error", code: expect.stringMatching(/^approval-/) });
      expect(await ask(JSON.stringify({ type: "waiting", id: "x9" }), "x9")).toMatchObject({ type: "reply" });
    }
    const [still] = await cA.waiting();
    expect(still).toMatchObject({ conversation: "sam", turn, state: "waiting" });
    const cB = keep(await connect(serverB.url, { key: "k1" }));
    expect(await cB.approve({ conversation: "sam", turn, by: "maria" })).toBe(DONE);
    expect(a.REFUNDS.length + b.REFUNDS.length).toBe(1);
  }, 60_000);
});
