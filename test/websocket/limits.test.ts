/**
 * What a key sees and answers (its programs as well as its conversations),
 * and sockets that never say hello: their own small cap, a short deadline,
 * a per-address limit; they never lock a real companion out.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { WaitingEntry } from "../../adapters/websocket/shared/protocol.js";
import { ai, tool, Waiting } from "../../src/index.js";
import type { LMRequest } from "../../src/lm/types.js";
import { scripted } from "../../src/testing/index.js";
import { until, waitingDesk } from "./fixtures.js";

const open: { close(): Promise<void> }[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);

/** A second program, `shop`, whose `ship` tool changes things (so it waits under approve: "changes"). */
function shop() {
  const SHIPPED: string[] = [];
  const ship = tool("ship", { description: "Ship an order.", input: { order_id: z.string() }, effects: "changes" }, ({ order_id }) => {
    SHIPPED.push(order_id);
    return `shipped ${order_id}`;
  });
  const fn = ai("shop", { description: "Ship what is asked.", input: { message: z.string() }, tools: [ship] });
  const lm = scripted(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? { toolCalls: [{ name: "ship", input: { order_id: "B-7" } }] } : "Shipped.")));
  return { served: fn.using({ lm }), SHIPPED };
}

/** `sam` waits in `desk` (a refund), `kim` in `shop` (a shipment); k-shop may only use `shop`. */
async function twoPrograms() {
  const d = await waitingDesk(["sam"]);
  const s = shop();
  const err = await s.served.conversation("kim", { store: d.store, approve: "changes" }).send("Ship B-7.").catch((e: unknown) => e);
  if (!(err instanceof Waiting)) throw new Error(`expected shop's turn to wait, got ${String(err)}`);
  const server = keep(await serve({ store: d.store, programs: [d.served, s.served], keys: ["k-all", { key: "k-shop", programs: ["shop"] }], port: 0 }));
  return { ...d, ...s, server };
}

const names = (list: readonly WaitingEntry[]) => list.map((w) => `${w.conversation}:${w.program}`).sort();

describe("a key limited to some programs sees and answers only their turns", () => {
  it("the waiting list (asked and pushed), status, approve, deny, resume, abandon", async () => {
    const { server, REFUNDS, SHIPPED } = await twoPrograms();
    const limited = keep(await connect(server.url, { key: "k-shop" }));
    const full = keep(await connect(server.url, { key: "k-all" }));
    expect(names(await full.waiting())).toEqual(["kim:shop", "sam:desk"]);
    expect(names(await limited.waiting())).toEqual(["kim:shop"]);
    expect(names(limited.last)).toEqual(["kim:shop"]); // the pushed list too: no tool input of desk's approvals
    expect(JSON.stringify(limited.last)).not.toContain("A-1042");
    const sam = (await full.waiting()).find((w) => w.conversation === "sam")!;
    const ref = { conversation: "sam", turn: sam.turn };
    for (const attempt of [
      () => limited.approve(ref),
      () => limited.deny({ ...ref, reason: "no" }),
      () => limited.status(ref),
      () => limited.resume(ref),
      () => limited.abandon(ref),
      () => limited.call("desk", "Refund A-1042", { approvals: "caller" }),
    ]) {
      const error = await Promise.resolve().then(attempt).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "remote-forbidden" });
      expect(String((error as Error).message)).not.toContain(sam.turn);
    }
    // a turn that does not exist is refused the same way (nothing told of what exists)
    await expect(limited.status({ conversation: "sam", turn: "0190b6a8-0000-7000-8000-000000000000" })).rejects.toMatchObject({ code: "remote-forbidden" });
    expect(REFUNDS).toEqual([]);
    expect(names(await full.waiting())).toEqual(["kim:shop", "sam:desk"]); // nothing was answered
    // its own program's turn it answers
    const kim = (await limited.waiting())[0]!;
    await limited.approve({ conversation: "kim", turn: kim.turn, by: "maria" });
    expect(SHIPPED).toEqual(["B-7"]);
    await full.approve({ ...ref, by: "maria" });
    expect(REFUNDS).toHaveLength(1);
  });

  it("pushed events: a subscriber limited to shop never sees desk's turn run", async () => {
    const { server } = await twoPrograms();
    const limited = keep(await connect(server.url, { key: "k-shop" }));
    const seen: string[] = [];
    limited.on("event", (e: { conversation: string | null }) => seen.push(String(e.conversation)));
    const full = keep(await connect(server.url, { key: "k-all" }));
    // desk's turn first: its events would reach the subscriber (one socket, in order) before shop's
    const all = (await full.waiting()).sort((a, b) => (a.conversation === "sam" ? -1 : b.conversation === "sam" ? 1 : 0));
    expect(all.map((w) => w.conversation)).toEqual(["sam", "kim"]);
    for (const w of all) await full.approve({ conversation: w.conversation, turn: w.turn, by: "maria" });
    await until(() => seen.includes("kim"));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((c) => c !== "kim")).toEqual([]);
  });
});

/** Opens a raw socket and says nothing; resolves once it is open (or already closed by the server). */
function idle(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  sockets.push(ws);
  ws.on("error", () => undefined);
  return new Promise((resolve) => {
    ws.once("open", () => resolve(ws));
    ws.once("close", () => resolve(ws));
  });
}
const closed = (ws: WebSocket): Promise<number> =>
  ws.readyState === ws.CLOSED ? Promise.resolve(4400) : new Promise((r) => ws.once("close", (code: number) => r(code)));

describe("a key limited to some programs calls only into their conversations", () => {
  it("an owner call may not start a turn in a conversation that holds another program's turns (its model would read them; theirs would read it)", async () => {
    const d = await waitingDesk(["sam"]);
    // a model that repeats what it was given, as a real one asked to would
    const echo = scripted(Array.from({ length: 6 }, () => (req: LMRequest) => req.messages.filter((m) => m.role !== "system").map((m) => JSON.stringify(m.content)).join(" ")));
    const notes = ai("notes", { description: "Take notes.", input: { message: z.string() } }).using({ lm: echo });
    const server = keep(await serve({ store: d.store, programs: [d.served, notes], keys: ["k-all", { key: "k-notes", programs: ["notes"] }], port: 0 }));
    const full = keep(await connect(server.url, { key: "k-all" }));
    const [sam] = await full.waiting();
    await full.approve({ conversation: "sam", turn: sam!.turn, by: "maria" }); // desk's turn is done: it is sam's history now
    const before = await d.store.read("sam");
    const limited = keep(await connect(server.url, { key: "k-notes" }));
    const answer = await Promise.resolve(limited.call("notes", "What was said before?", { conversation: "sam" })).catch((e: unknown) => e);
    expect(JSON.stringify(answer)).not.toContain("A-1042");
    expect(answer).toMatchObject({ code: "remote-forbidden" });
    expect(await d.store.read("sam")).toEqual(before);
    expect(echo.requests).toHaveLength(0);
    // a new conversation, then one holding only its program's turns, it calls in
    expect(await limited.call("notes", "Note one.", { conversation: "notes-1" })).toContain("Note one.");
    expect(await limited.call("notes", "Note two.", { conversation: "notes-1" })).toContain("Note one.");
  });
});

describe("sockets that never say hello", () => {
  it("300 idle sockets do not lock out a real companion with a key; at most maxPending of them are kept", async () => {
    const { store, served } = await waitingDesk(["sam"]);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0 }));
    const idlers: WebSocket[] = [];
    for (let i = 0; i < 300; i += 50) idlers.push(...(await Promise.all(Array.from({ length: 50 }, () => idle(server.url)))));
    await until(() => server.connections <= 32);
    const app = keep(await connect(server.url, { key: "k1" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    expect(server.connections).toBeLessThanOrEqual(33);
    // more idle sockets after it: the companion, having said hello, keeps its place
    await Promise.all(Array.from({ length: 100 }, () => idle(server.url)));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    expect(idlers.filter((ws) => ws.readyState === ws.OPEN).length).toBeLessThanOrEqual(32);
  });

  it("are closed after the hello deadline (4400); a companion that said hello stays", async () => {
    const { store, served } = await waitingDesk(["sam"]);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0, helloTimeoutMs: 300 }));
    const app = keep(await connect(server.url, { key: "k1" }));
    const idlers = await Promise.all(Array.from({ length: 10 }, () => idle(server.url)));
    expect(await Promise.all(idlers.map(closed))).toEqual(Array(10).fill(4400));
    await until(() => server.connections === 1);
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });

  it("a per-address limit: companions past it are refused (1013) unless an idle socket of that address can make room", async () => {
    const { store, served } = await waitingDesk(["sam"]);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0, maxPerAddress: 3 }));
    const apps = [];
    for (let i = 0; i < 3; i++) apps.push(keep(await connect(server.url, { key: "k1" })));
    const ws = new WebSocket(server.url);
    sockets.push(ws);
    expect(await new Promise<number>((r) => ws.once("close", (code: number) => r(code)))).toBe(1013);
    await apps[2]!.close();
    await until(() => server.connections === 2);
    const quiet = await idle(server.url);
    const app = keep(await connect(server.url, { key: "k1" })); // the idle socket makes room
    expect(await closed(quiet)).toBe(4400);
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});

describe("malformed frames", () => {
  it("get an error reply (remote-protocol), before and after the hello", async () => {
    const { store, served } = await waitingDesk(["sam"]);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0 }));
    const ws = new WebSocket(server.url);
    sockets.push(ws);
    const replies: { type: string; id?: string | null; code?: string }[] = [];
    ws.on("message", (d) => replies.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once("open", r));
    ws.send("{not json");
    await until(() => replies.length === 1);
    ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key: "k1" }));
    await until(() => replies.some((m) => m.type === "welcome"));
    ws.send(JSON.stringify({ type: "approve", id: "a" })); // no conversation, no turn
    ws.send(JSON.stringify({ type: "nonsense", id: "b" }));
    await until(() => replies.filter((m) => m.type === "error").length === 3);
    expect(replies.filter((m) => m.type === "error")).toEqual([
      expect.objectContaining({ id: null, code: "remote-protocol" }),
      expect.objectContaining({ id: "a", code: "remote-protocol" }),
      expect.objectContaining({ id: "b", code: "remote-protocol" }),
    ]);
    expect(ws.readyState).toBe(ws.OPEN);
  });
});

describe("the rate limit", () => {
  it("a request refused for the rate is answered by its id: the companion's call settles (remote-rate-limit)", async () => {
    const { store, served } = await waitingDesk(["sam"]);
    const server = keep(await serve({ store, programs: [served], keys: ["k1"], port: 0, rate: { perSecond: 0.1, burst: 5, strikes: 20 } }));
    const app = keep(await connect(server.url, { key: "k1", reconnect: false }));
    const settled = await Promise.race([
      Promise.allSettled(Array.from({ length: 10 }, () => app.waiting())),
      new Promise<"hung">((r) => setTimeout(() => r("hung"), 3000)),
    ]);
    expect(settled).not.toBe("hung");
    const results = settled as PromiseSettledResult<WaitingEntry[]>[];
    const answered = results.filter((r) => r.status === "fulfilled");
    expect(answered.length).toBe(4); // the burst, less the hello's token
    for (const r of answered) expect((r as PromiseFulfilledResult<WaitingEntry[]>).value.map((w) => w.conversation)).toEqual(["sam"]);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(6).fill("remote-rate-limit"));
  });
});
