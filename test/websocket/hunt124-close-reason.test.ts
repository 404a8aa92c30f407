/**
 * A frame the server's `ws` refuses itself closes the connection with its code and, now, a reason: past `maxPayload`
 * (1009, naming the limit), text that is not UTF-8 (1007), or a frame the protocol does not allow (1002: unmasked). `ws` gave none, and a client read a bare code. The
 * server and its other companions go on.
 */
import { randomBytes } from "node:crypto";
import { connect as tcpConnect } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** Opens a raw socket, says hello, sends `frame`, and resolves with how the server closed it. */
async function closeAfter(url: string, frame: Buffer | string, binary = false): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(url);
  ws.on("error", () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once("close", (code, reason) => r({ code, reason: String(reason) })));
  await new Promise((r) => ws.once("open", r));
  ws.send(JSON.stringify({ type: "hello", id: "h", v: 1 }));
  await new Promise((r) => ws.once("message", r)); // (welcomed)
  ws.send(frame, { binary });
  return closed;
}

describe("a frame the server refuses before reading it", () => {
  it("past maxPayload: closed 1009 with a reason naming the limit; another companion is still served", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, maxPayload: 4096 }));
    const other = keep(await connect(server.url));
    await other.waiting();
    const closed = await closeAfter(server.url, JSON.stringify({ type: "waiting", id: "w", pad: "x".repeat(5000) }));
    expect(closed).toEqual({ code: 1009, reason: "a message over 4096 bytes (the server's maxPayload)" });
    expect((await other.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });

  it("text that is not UTF-8: closed 1007 with a reason", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    expect(await closeAfter(server.url, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toEqual({ code: 1007, reason: "a text frame that is not UTF-8" });
  });

  it("a frame the protocol does not allow (a client's frame unmasked): closed 1002 with a reason", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const socket = tcpConnect(server.port, "127.0.0.1");
    socket.on("error", () => undefined);
    await new Promise((r) => socket.once("connect", r));
    let got = Buffer.alloc(0);
    socket.on("data", (b: Buffer) => (got = Buffer.concat([got, b])));
    const key = randomBytes(16).toString("base64");
    socket.write(
      `GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    const text = Buffer.from(JSON.stringify({ type: "waiting", id: "w" }));
    await new Promise((r) => socket.once("data", r)); // (upgraded)
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text])); // a text frame, not masked
    await new Promise((r) => socket.once("end", r));
    socket.destroy();
    const frame = got.subarray(got.indexOf("\r\n\r\n") + 4);
    expect(frame[0]).toBe(0x88); // a close
    expect(frame.readUInt16BE(2)).toBe(1002);
    expect(String(frame.subarray(4))).toBe("a frame the WebSocket protocol does not allow (unmasked, an unknown opcode, …)");
  });
});
