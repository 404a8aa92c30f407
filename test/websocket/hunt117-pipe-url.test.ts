/**
 * A server attached to an HTTP server that listens on a pipe (a unix socket path) has no host nor port: its `url`
 * is the `ws+unix:` form `ws` connects to (the socket's path, then the served path), never `ws://undefined:undefined`.
 */
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function pipeServer(): Promise<{ http: ReturnType<typeof createServer>; socketPath: string }> {
  const dir = mkdtempSync(join(tmpdir(), "functai-pipe-"));
  dirs.push(dir);
  const socketPath = join(dir, "desk.sock");
  const http = createServer();
  await new Promise<void>((r) => http.listen(socketPath, r));
  keep({ close: () => new Promise<void>((r) => http.close(() => r())) });
  return { http, socketPath };
}

describe.skipIf(process.platform === "win32")("serve({ server }) on a pipe", () => {
  it("says a ws+unix: url a companion connects to, with the served path", async () => {
    const d = await waitingDesk(["sam"]);
    const { http, socketPath } = await pipeServer();
    const server = keep(await serve({ store: d.store, programs: [d.served], server: http, path: "/functai", keys: ["k1"] }));
    expect(server.url).toBe(`ws+unix:${socketPath}:/functai`);
    expect({ host: server.host, port: server.port }).toEqual({ host: socketPath, port: 0 });
    const app = keep(await connect(server.url, { key: "k1" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });

  it("without a served path, the url still reaches it", async () => {
    const d = await waitingDesk(["sam"]);
    const { http, socketPath } = await pipeServer();
    const server = keep(await serve({ store: d.store, programs: [d.served], server: http, keys: ["k1"] }));
    expect(server.url).toBe(`ws+unix:${socketPath}`);
    expect(server.url).not.toContain("undefined");
    const app = keep(await connect(server.url, { key: "k1" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
