/**
 * A server attached to an HTTP server on a unix socket is reached only from this machine, as one on loopback is (the
 * socket file's permissions say who): it needs no keys, and browser pages are still let in only by `origins`. It was
 * refused (`remote-auth`), as though a pipe were a host beyond loopback. A Windows named pipe, which others reach over
 * the network, still needs keys (not tested here: no named pipes on this platform).
 */
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function pipeServer() {
  const dir = mkdtempSync(join(tmpdir(), "functai-pipe-"));
  dirs.push(dir);
  const http = createServer();
  await new Promise<void>((r) => http.listen(join(dir, "desk.sock"), r));
  keep({ close: () => new Promise<void>((r) => http.close(() => r())) });
  return http;
}

/** The close code of a socket opened on `url` with `origin` (0: it opened). */
function closeCodeFrom(url: string, origin: string): Promise<number> {
  const ws = new WebSocket(url, { origin });
  ws.on("error", () => undefined);
  return new Promise((r) => {
    ws.once("open", () => (ws.close(), r(0)));
    ws.once("unexpected-response", (_req, res) => r(res.statusCode ?? -1));
  });
}

describe.skipIf(process.platform === "win32")("serve({ server }) on a unix socket, without keys", () => {
  it("is served as on loopback: a companion needs no key, a page not listed in origins is refused", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], server: await pipeServer(), origins: ["http://localhost:5173"] }));
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    expect(await closeCodeFrom(server.url, "https://evil.example")).toBe(401);
    expect(await closeCodeFrom(server.url, "http://localhost:5173")).toBe(0);
  });

  it("may have its keys all taken away (setKeys([])), as a loopback server may", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], server: await pipeServer(), keys: ["k1"] }));
    server.setKeys([]);
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
