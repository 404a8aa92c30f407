/**
 * A caller call (`approvals: "caller"`) runs in no conversation: its
 * approvals come to the caller's stream, nothing is saved. Naming a
 * conversation too asks for both; it is refused (settings-invalid), by the
 * companion before it sends and by the server for a companion that sends it
 * anyway, never run as a caller call with the conversation dropped (the
 * caller believing its turn is saved there, and, cut off, told to find it
 * there with app.status).
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, PROTOCOL_VERSION, serve } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { desk, deskModel, keeper } from "./fixtures.js";

const keep = keeper();

/** What `p` settles to, or "hang" (before the fix a caller call ran and waited for its approval: nothing settled). */
const settled = <T>(p: PromiseLike<T>): Promise<{ v: T } | { e: unknown } | "hang"> =>
  Promise.race([
    Promise.resolve(p).then(
      (v) => ({ v }),
      (e: unknown) => ({ e }),
    ),
    new Promise<"hang">((r) => setTimeout(() => r("hang"), 3000)),
  ]);

async function setup() {
  const d = desk();
  const store = memoryStore();
  const server = keep(await serve({ store, programs: [d.fn.using({ lm: deskModel() })], port: 0 }));
  return { ...d, store, server };
}

/** A raw socket that said hello; `ask` sends one request and resolves with the server's answer to it (by its id). */
async function raw(url: string) {
  const ws = new WebSocket(url);
  const messages: { type: string; id?: string | null; code?: string }[] = [];
  const heard: (() => void)[] = [];
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)));
    for (const fn of heard.splice(0)) fn();
  });
  await new Promise<void>((resolve, reject) => (ws.once("open", () => resolve()), ws.once("error", reject)));
  const answer = async (id: string) => {
    for (;;) {
      const m = messages.find((x) => x.id === id && (x.type === "reply" || x.type === "error" || x.type === "welcome"));
      if (m) return m;
      await new Promise<void>((r) => heard.push(r));
    }
  };
  ws.send(JSON.stringify({ type: "hello", id: "hello", v: PROTOCOL_VERSION }));
  await answer("hello");
  return {
    ask: (msg: { id: string; [field: string]: unknown }) => (ws.send(JSON.stringify(msg)), answer(msg.id)),
    close: () => new Promise<void>((r) => (ws.once("close", () => r()), ws.close())),
  };
}

describe("a caller call that names a conversation", () => {
  it("is refused by the companion (settings-invalid) before it is sent: nothing runs, nothing is saved", async () => {
    const d = await setup();
    const app = keep(await connect(d.server.url));
    const s = app.call("desk", { message: "Refund A-1042." }, { approvals: "caller", conversation: "sam" });
    expect(await settled(s.outcome)).toMatchObject({ e: { name: "RemoteError", code: "settings-invalid" } });
    expect(await d.store.read("sam")).toEqual([]);
    expect(d.LOOKUPS).toEqual([]);
    // the connection goes on
    expect(await app.waiting()).toEqual([]);
  });

  it("sent anyway, is refused by the server (settings-invalid) by its id: the program never runs", async () => {
    const d = await setup();
    const sock = keep(await raw(d.server.url));
    const answer = await settled(
      sock.ask({ type: "call", id: "c1", program: "desk", input: { message: "Refund A-1042." }, approvals: "caller", conversation: "sam" }),
    );
    expect(answer).toMatchObject({ v: { type: "error", id: "c1", code: "settings-invalid" } });
    expect(d.LOOKUPS).toEqual([]);
    expect(await d.store.read("sam")).toEqual([]);
    // an owner call into it, and a caller call without one, still run
    expect(
      await sock.ask({ type: "call", id: "c2", program: "desk", input: { message: "Where is A-1042?" }, approvals: "owner", conversation: "sam" }),
    ).toMatchObject({ type: "reply", id: "c2" });
    expect(d.LOOKUPS).toEqual(["A-1042"]);
  });
});
