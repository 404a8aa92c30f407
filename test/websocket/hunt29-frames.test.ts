/**
 * Frames a companion should not send, on a real `ws` socket: each gets an
 * error reply with a stable code, and none settles another request's answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { serve } from "../../adapters/websocket/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
const sockets: WebSocket[] = [];
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});

/** A raw socket that said hello with `key`; every message it gets, parsed. */
async function raw(url: string, key = "k1") {
  const ws = new WebSocket(url);
  sockets.push(ws);
  const messages: { type: string; id?: string | null; code?: string; message?: string; result?: unknown }[] = [];
  ws.on("message", (d) => messages.push(JSON.parse(String(d))));
  ws.on("error", () => undefined);
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "hello", id: "h", v: 1, key }));
  await until(() => messages.some((m) => m.type === "welcome"));
  return { ws, messages };
}

describe("a request id sent again while its request runs", () => {
  it("is refused without its id: the first request's own reply is the only answer its id gets", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const c = await raw(server.url);
    const turn = (c.messages.find((m) => m.type === "waiting") as unknown as { waiting: { turn: string }[] }).waiting[0]!.turn;
    c.ws.send(JSON.stringify({ type: "approve", id: "x1", conversation: "sam", turn }));
    c.ws.send(JSON.stringify({ type: "approve", id: "x1", conversation: "sam", turn }));
    await until(() => c.messages.some((m) => m.type === "error"));
    release();
    await until(() => c.messages.some((m) => m.type === "reply" && m.id === "x1"));
    const answers = c.messages.filter((m) => (m.type === "reply" || m.type === "error") && m.id === "x1");
    expect(answers).toEqual([{ type: "reply", id: "x1", result: expect.objectContaining({ state: "done" }) }]);
    expect(c.messages.filter((m) => m.type === "error")).toEqual([
      { type: "error", id: null, code: "remote-protocol", message: expect.stringContaining("request id x1 is in use") },
    ]);
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });
});

describe("an answer held to approvals the turn no longer asks for", () => {
  // src/conversation/answers.ts (recordAnswer) refused an id-less answer held to `shown` (`among`) that matches no
  // waiting approval with `turn … has no waiting approval undefined`; it names the approvals it was held to now.
  it('is refused (approval-unknown) naming what it was held to, not "undefined"', async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], keys: ["k1"], port: 0 }));
    const c = await raw(server.url);
    const turn = (c.messages.find((m) => m.type === "waiting") as unknown as { waiting: { turn: string }[] }).waiting[0]!.turn;
    c.ws.send(JSON.stringify({ type: "deny", id: "d1", conversation: "sam", turn, shown: ["desk#1:9"] }));
    await until(() => c.messages.some((m) => m.id === "d1"));
    const reply = c.messages.find((m) => m.id === "d1")!;
    expect(reply).toMatchObject({ type: "error", code: "approval-unknown" });
    expect(reply.message).not.toContain("undefined");
    expect(reply.message).toContain("desk#1:9");
  });
});
