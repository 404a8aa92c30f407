/**
 * Hostile sockets against a server in a process of its own: whatever a
 * client sends, the server's process lives on and keeps serving.
 */
import { connect as tcpConnect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../adapters/websocket/index.js";
import { spawnScript, type Child } from "../store/fs-children.js";

const children: Child[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGTERM");
    await c.exited;
  }
});

const UPGRADE = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

/** Opens a WebSocket by hand and sends `frame` with the upgrade (one write); resolves when the server has dropped the socket. */
function upgradeAndSend(port: number, frame: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, "127.0.0.1", () => s.write(Buffer.concat([Buffer.from(UPGRADE, "latin1"), frame])));
    s.on("error", () => undefined);
    s.on("close", () => resolve());
    s.resume();
  });
}

describe("a socket refused because the server is full", () => {
  it("sending a broken frame (unmasked, or past maxPayload) does not crash the server's process", async () => {
    const child = spawnScript(fileURLToPath(new URL("./children/full-server.ts", import.meta.url)), ["1"]);
    children.push(child);
    const url = (await child.line((l) => l.startsWith("url "))).slice(4);
    const port = Number(new URL(url).port);
    const app = await connect(url, { key: "k1", reconnect: false }); // the one connection the server takes
    open.push(app);
    // refused (1013), and before its close completes: a frame a client must mask, then one far past maxPayload
    await upgradeAndSend(port, Buffer.from([0x81, 0x02, 0x68, 0x69]));
    await upgradeAndSend(port, Buffer.from([0x82, 0xff, 0, 0, 0, 0, 0, 0x10, 0, 0, 1, 2, 3, 4]));
    await new Promise((r) => setTimeout(r, 200)); // (an unhandled error would end the process about now)
    expect(child.proc.exitCode).toBeNull();
    expect(await app.waiting()).toEqual([]); // still served, on the same connection
  });
});
