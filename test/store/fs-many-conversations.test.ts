/**
 * One fs store serving many conversations at once (a server), keeping fewer
 * files open between appends than conversations write (`openFiles: 8`), so
 * keeping a new one closes an old one. A handle another conversation's append is using at that moment
 * (its write or its fsync in flight) must not be closed under it: that
 * failed the append (EBADF), and a reused descriptor number could have sent
 * its bytes into another conversation's file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("fsStore with many conversations appending at once", () => {
  it("every append lands whole in its own conversation's file, in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "functai-many-"));
    dirs.push(dir);
    const store = fsStore(dir, { openFiles: 8 });
    const conversations = Array.from({ length: 60 }, (_, i) => `c${i}`);
    const rounds = 6;
    await Promise.all(
      conversations.map(async (id) => {
        for (let r = 0; r < rounds; r++) {
          const length = await store.append(id, [{ functai_conversation: 1, kind: "note", at: "2026-11-30T00:00:00.000Z", owner: id, round: r }]);
          expect(length).toBe(r + 1);
        }
      }),
    );
    await store.close?.();
    const reader = fsStore(dir);
    for (const id of conversations) {
      const records = (await reader.read(id)) as unknown as { owner: string; round: number; seq: number }[];
      expect(records.map((r) => [r.owner, r.round, r.seq])).toEqual(Array.from({ length: rounds }, (_, r) => [id, r, r + 1]));
    }
    await reader.close?.();
  });
});
