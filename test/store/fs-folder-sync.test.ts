/**
 * The fs store's group commit of folder flushes (adapters/node-fs/folder-sync.ts):
 * a new file's name is durable once a folder fsync that began after the file
 * was made is done; files made while one is in flight share the next one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FolderSync } from "../../adapters/node-fs/folder-sync.js";

/** A folder fsync under the test's control: what it covers is the count of files made when it began. */
interface FakeSync {
  covers: number;
  ok: () => void;
  fail: (e: Error) => void;
}

function harness() {
  const syncs: FakeSync[] = [];
  const state = { made: 0, running: 0, most: 0 };
  /** The files made so far that a finished folder fsync covers. */
  let durable = 0;
  const folder = new FolderSync(
    () =>
      new Promise<void>((ok, fail) => {
        const covers = state.made;
        state.running++;
        state.most = Math.max(state.most, state.running);
        syncs.push({
          covers,
          ok: () => {
            state.running--;
            durable = Math.max(durable, covers);
            ok();
          },
          fail: (e) => {
            state.running--;
            fail(e);
          },
        });
      }),
  );
  /** Makes file number `made`, then asks for its folder flush: what it was told, and whether durable covered it then. */
  const make = () => {
    const file = ++state.made;
    const told = { file, settled: "no" as "no" | "ok" | "failed", covered: false };
    folder
      .after()
      .then(
        () => {
          told.settled = "ok";
          told.covered = durable >= file;
        },
        () => {
          told.settled = "failed";
        },
      );
    return told;
  };
  return { syncs, state, make, folder };
}

const ticks = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe("fs store: folder flushes, grouped", () => {
  it("files made while a folder flush runs share the next one, which begins when it ends", async () => {
    const { syncs, make } = harness();
    const first = make();
    expect(syncs).toHaveLength(1);
    const later = Array.from({ length: 5 }, make);
    await ticks();
    expect(syncs).toHaveLength(1); // none began while one runs
    syncs[0]!.ok();
    await ticks();
    expect(first).toMatchObject({ settled: "ok", covered: true });
    expect(later.map((t) => t.settled)).toEqual(["no", "no", "no", "no", "no"]); // the flush that ended began before them
    expect(syncs).toHaveLength(2);
    expect(syncs[1]!.covers).toBe(6);
    syncs[1]!.ok();
    await ticks();
    expect(later.every((t) => t.settled === "ok" && t.covered)).toBe(true);
    expect(syncs).toHaveLength(2); // six files, two folder flushes
  });

  it("a failed folder flush fails the files waiting for it, and the next file begins a new one", async () => {
    const { syncs, make } = harness();
    make();
    const waiting = [make(), make()];
    syncs[0]!.ok();
    await ticks();
    syncs[1]!.fail(new Error("EIO"));
    await ticks();
    expect(waiting.map((t) => t.settled)).toEqual(["failed", "failed"]);
    const again = make();
    expect(syncs).toHaveLength(3);
    syncs[2]!.ok();
    await ticks();
    expect(again).toMatchObject({ settled: "ok", covered: true });
  });

  it("whatever the order of files made and flushes ending: every file is told durable only after a flush begun after it, one flush at a time", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom("make", "ok", "fail"), { minLength: 1, maxLength: 40 }), async (steps) => {
        const { syncs, state, make } = harness();
        const told: ReturnType<typeof make>[] = [];
        let settledSyncs = 0;
        const endOne = (how: "ok" | "fail") => {
          const s = syncs[settledSyncs];
          if (!s) return false;
          settledSyncs++;
          if (how === "ok") s.ok();
          else s.fail(new Error("EIO"));
          return true;
        };
        for (const step of steps) {
          if (step === "make") told.push(make());
          else endOne(step);
          await ticks();
        }
        while (endOne("ok")) await ticks();
        for (const t of told) {
          expect(t.settled).not.toBe("no");
          if (t.settled === "ok") expect(t.covered).toBe(true);
        }
        expect(state.most).toBeLessThanOrEqual(1);
        expect(syncs.length).toBeLessThanOrEqual(told.length);
      }),
      { numRuns: 300 },
    );
  });
});
