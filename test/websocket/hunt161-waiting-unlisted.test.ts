/**
 * `app.waiting()` asks the server to read its store now. A store that could not list its conversations (its folder
 * gone: an unmounted disk, a volume swapped) was told only to the server's log, and the request was answered with
 * the list as last read: a person was shown what waited before (or nothing, on a server that never read it) as
 * though it were read now. It is refused now with the store's code (`store-io`, "the store failed"); once the store
 * lists again, the answer is the list as it is.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("waiting() when the store cannot list its conversations", () => {
  it("is refused with the store's code, not answered with the list as last read; answered again once it lists", async () => {
    const root = mkdtempSync(join(tmpdir(), "functai-hunt161-"));
    const dir = join(root, "desk");
    mkdirSync(dir);
    const store = fsStore(dir);
    const d = await waitingDesk(["sam"], { store });
    const errors: string[] = [];
    const server = keep(await serve({ store, programs: [d.served], port: 0, onError: (m) => errors.push(m) }));
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    // the folder moved away, a file in its place: listing it fails (ENOTDIR)
    renameSync(dir, join(root, "away"));
    writeFileSync(dir, "");
    try {
      const e = await app.waiting().catch((x: unknown) => x as { code?: string; message?: string });
      expect(e).toMatchObject({ code: "store-io", message: "the store failed" });
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir);
      renameSync(join(root, "away"), dir);
    }
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    rmSync(root, { recursive: true, force: true });
  });
});
