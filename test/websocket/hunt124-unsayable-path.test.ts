/**
 * A server whose url no client can use is refused at `serve` (`settings-invalid`), never served with a url that
 * reaches another socket or none: a unix socket path with a `:` (`ws` cuts the `ws+unix:` url there), a space (the URL
 * encodes it, `ws` decodes nothing) or a `#` (a fragment); a served `path` a client's request cannot carry as it is
 * (a space, a `?`, none of a leading `/`: `ws` compares the request's path letter for letter, and refused every
 * connection, 400).
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

async function pipeServer(name: string) {
  const dir = mkdtempSync(join(tmpdir(), "functai-pipe-"));
  dirs.push(dir);
  const http = createServer();
  await new Promise<void>((r) => http.listen(join(dir, name), r));
  keep({ close: () => new Promise<void>((r) => http.close(() => r())) });
  return http;
}

describe.skipIf(process.platform === "win32")("a unix socket path a ws+unix: url cannot name", () => {
  it("is refused at serve (settings-invalid), naming the path; a path with a ? still works", async () => {
    const d = await waitingDesk(["sam"]);
    for (const name of ["desk 1.sock", "desk:1.sock", "desk#1.sock"]) {
      const http = await pipeServer(name);
      const e = await serve({ store: d.store, programs: [d.served], server: http, keys: ["k1"], path: "/functai" }).then(
        (s) => (keep(s), s.url),
        (x: unknown) => x,
      );
      expect(e, name).toMatchObject({ code: "settings-invalid", message: expect.stringContaining(name) });
    }
    const server = keep(
      await serve({ store: d.store, programs: [d.served], server: await pipeServer("desk?1.sock"), keys: ["k1"], path: "/functai" }),
    );
    const app = keep(await connect(server.url, { key: "k1" }));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});

describe("a served path a request cannot carry as it is", () => {
  it("is refused at serve (settings-invalid); one with an escape a client sends as it is serves", async () => {
    const d = await waitingDesk(["sam"]);
    for (const path of ["/desk chats", "functai", "/desk?x=1", "/desk#x", "/a/../b"]) {
      const e = await serve({ store: d.store, programs: [d.served], port: 0, path }).then(
        (s) => (keep(s), s.url),
        (x: unknown) => x,
      );
      expect(e, path).toMatchObject({ code: "settings-invalid", message: expect.stringContaining("path") });
    }
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, path: "/desk%20chats" }));
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });
});
