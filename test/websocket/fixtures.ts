/** The spec's refund desk on the scripted model, served over WebSocket on loopback. */
import { createServer, connect as tcpConnect, type AddressInfo, type Socket } from "node:net";
import { Transform } from "node:stream";
import { afterEach } from "vitest";
import { WebSocket as WsSocket } from "ws";
import { z } from "zod";
import type { SocketLike } from "../../adapters/websocket/index.js";
import { ai, tool, Waiting } from "../../src/index.js";
import { faultyStore, memoryStore, scripted } from "../../src/testing/index.js";
import type { Store } from "../../src/store/types.js";
import { FunctaiError } from "../../src/errors.js";
import type { LMRequest } from "../../src/lm/types.js";

export function desk(options: { gate?: Promise<void> } = {}) {
  const REFUNDS: [string, number][] = [];
  const LOOKUPS: string[] = [];
  const findOrder = tool("find_order", { description: "The order's item, price paid and shipping status.", input: { order_id: z.string() }, effects: "reads" },
    ({ order_id }) => {
      LOOKUPS.push(order_id);
      return ({ "A-1042": { item: "kettle", paid: 39.0, status: "lost by the carrier" } } as Record<string, object>)[order_id] ?? {};
    });
  const refund = tool("refund", { description: "Refund an amount to the customer's card.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
    async ({ order_id, amount }) => {
      await options.gate; // a test holds the tool open to act mid-turn
      REFUNDS.push([order_id, amount]);
      return `refunded ${amount.toFixed(2)} for ${order_id}`;
    });
  const fn = ai("desk", { description: "Help the customer. Refund lost orders in full.", input: { message: z.string() }, tools: [findOrder, refund] });
  return { fn, REFUNDS, LOOKUPS };
}

/** Find the order, refund it, then say what the last tool said (so a refusal's reason is visible). */
export const script = () => [
  { toolCalls: [{ name: "find_order", input: { order_id: "A-1042" } }] },
  { toolCalls: [{ name: "refund", input: { order_id: "A-1042", amount: 39 } }] },
  (req: { messages: { role: string; content: string }[] }) => `The last tool said: ${req.messages.at(-1)!.content}`,
];

/** The same script, answered by where the turn is (not by order), so turns of several conversations can share one model. */
export function deskModel(turns = 20) {
  const steps = script();
  const reply = (req: LMRequest) => {
    const step = Math.min(req.messages.filter((m) => m.role === "tool").length, 2);
    const r = steps[step]!;
    return typeof r === "function" ? r(req as never) : r;
  };
  return scripted(Array.from({ length: turns * 3 }, () => reply));
}

/** A desk whose served program has the scripted model, with one turn per conversation `ids` waiting for the refund's approval. */
export async function waitingDesk(ids: readonly string[] = ["sam"], options: { store?: Store; gate?: Promise<void> } = {}) {
  const store = options.store ?? memoryStore();
  const d = desk(options.gate ? { gate: options.gate } : {});
  const lm = deskModel();
  const served = d.fn.using({ lm });
  for (const id of ids) {
    const err = await served.conversation(id, { store, approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.").catch((e: unknown) => e);
    if (!(err instanceof Waiting)) throw new Error(`expected the turn to wait, got ${String(err)}`);
  }
  return { ...d, lm, served, store };
}

/** Polls `check` until it holds (bounded). */
const isRefundDone = (r: object): boolean => {
  const t = r as { kind?: string; state?: string; name?: string };
  return t.kind === "tool" && t.state === "done" && t.name === "refund";
};

/** One turn per id whose process "died" right after the refund ran, before its result was kept: interrupted, the refund unfinished. */
export async function crashedDesk(ids: string[]) {
  const d = desk();
  const lm = deskModel();
  const served = d.fn.using({ lm });
  const inner = memoryStore();
  for (const id of ids) {
    const store = faultyStore(inner, { crash: true, failOn: (call) => (call.records.some((r) => isRefundDone(r)) ? "before-write" : undefined) });
    await served
      .conversation(id, { store, lease: { renewMs: 20, ttlMs: 60 } })
      .send("Refund A-1042.")
      .catch(() => undefined);
  }
  return { ...d, lm, served, store: inner };
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A TCP proxy in front of a server, whose connections a test can cut (a network that drops), or take down (every
 * connection cut, new ones refused) until it is brought `up` again. Its server-to-companion bytes can be held back
 * (`hold`) and let through again (`flow`): what the server sends meanwhile reaches the companion late, in order,
 * while the companion's own messages go at once (a slow network).
 */
export async function proxy(port: number) {
  const sockets = new Set<Socket>();
  let isDown = false;
  let held = false;
  const waiting: { to: Transform; chunk: Buffer }[] = [];
  const server = createServer((client) => {
    if (isDown) return void client.destroy();
    const upstream = tcpConnect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    const gate = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (held) waiting.push({ to: this, chunk });
        else this.push(chunk);
        done();
      },
    });
    client.pipe(upstream).pipe(gate).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => sockets.forEach((s) => s.destroy()),
    down: () => {
      isDown = true;
      for (const s of sockets) s.destroy();
    },
    up: () => void (isDown = false),
    hold: () => void (held = true),
    /** What is held back, as text (the server's frames are not masked: their JSON reads as it was sent). */
    heldText: () => Buffer.concat(waiting.map((w) => w.chunk)).toString("utf8"),
    flow: () => {
      held = false;
      // (what a connection that ended meanwhile was sent is dropped: the server's end of it is gone)
      for (const { to, chunk } of waiting.splice(0)) if (!to.writableEnded) to.push(chunk);
    },
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/** Closes, after each test, what the returned `keep` was given (the last first). */
export function keeper(): <T extends { close(): Promise<void> }>(x: T) => T {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
  });
  return (x) => (open.push(x), x);
}

/** A `ws` socket behind the `SocketLike` a companion takes; tests change one part of it (how it closes, what events it gives). */
export class WrappedSocket implements SocketLike {
  protected readonly ws: WsSocket;
  constructor(url: string) {
    this.ws = new WsSocket(url);
  }
  get readyState(): number {
    return this.ws.readyState;
  }
  send(data: string): void {
    this.ws.send(data);
  }
  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }
  addEventListener(type: "open" | "error" | "message" | "close", listener: (e: never) => void): void {
    this.ws.addEventListener(type, listener as never);
  }
}

/** The inner store, plus a conversation "aaa" (listed first) whose every read and scan fails. */
export function withUnreadable(inner: Store): Store {
  const broken = () => Promise.reject(new FunctaiError("store-corrupt", "conversation aaa: a damaged record"));
  const own: Partial<Store> = {
    read: (c, after) => (c === "aaa" ? broken() : inner.read(c, after)),
    ...(inner.scan ? { scan: (c: string, after: number, visit: Parameters<NonNullable<Store["scan"]>>[2]) => (c === "aaa" ? broken() : inner.scan!(c, after, visit)) } : {}),
    list: async () => ["aaa", ...((await inner.list?.()) ?? [])],
    length: (c) => (c === "aaa" ? Promise.resolve(3) : inner.length!(c)),
  };
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(own, key)) return own[key as keyof Store];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
