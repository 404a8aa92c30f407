// fake-indexeddb in Node (hunt 63): indexedDBStore's options are checked when the store is made, as fsStore's and
// postgresStore's are: no options object, a key it does not take, or a `locks` that is not a Web Locks API was a bare
// TypeError, or left out without a word, or a TypeError in the middle of the first turn.
import "fake-indexeddb/auto";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { freshName } from "./indexeddb-cases.js";
import { desk, MESSAGE, oneTab } from "../browser/desk.js";

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
};

describe("indexedDBStore: its options are checked when it is made", () => {
  const names: string[] = [];
  afterEach(async () => {
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  it("options that are not an object (null, a string, an array) are refused (input-invalid), not a TypeError or read as none", () => {
    for (const bad of [null, "fast", 42, [{ pollMs: 500 }]]) {
      const e = thrown(() => indexedDBStore(freshName(), bad as never));
      expect(isFunctaiError(e, "input-invalid"), `${JSON.stringify(bad)}: ${String(e)}`).toBe(true);
      expect(String(e)).toMatch(/options/);
    }
  });

  it("a key it does not take is refused, naming it: a misspelt openTimeoutMs or locks is not left out without a word", () => {
    for (const [bad, key] of [
      [{ openTimeout: 60_000 }, "openTimeout"],
      [{ lock: null }, "lock"],
      [{ pollMs: 500, pollms: 10 }, "pollms"],
    ] as const) {
      const e = thrown(() => indexedDBStore(freshName(), bad as never));
      expect(isFunctaiError(e, "input-invalid"), `${JSON.stringify(bad)}: ${String(e)}`).toBe(true);
      expect(String(e)).toContain(`"${key}"`);
    }
  });

  it("a locks that is not a Web Locks API is refused when the store is made, not a TypeError in the middle of the first turn", async () => {
    for (const bad of [{}, true, "navigator.locks", { request: () => undefined }]) {
      const name = freshName();
      names.push(name);
      const made = (() => {
        try {
          return indexedDBStore(name, { locks: bad as never });
        } catch (e) {
          return e;
        }
      })();
      if (isFunctaiError(made)) {
        expect(made.code).toBe("input-invalid");
        expect(String(made)).toMatch(/locks/);
        continue;
      }
      // before: made, with a liveness; the first turn then failed with a TypeError that carries no code
      const store = made as ReturnType<typeof indexedDBStore>;
      const lm = oneTab();
      const e = await desk()
        .fn.conversation("sam", { store, lm })
        .send(MESSAGE)
        .then(
          () => undefined,
          (x: unknown) => x,
        );
      await store.close?.();
      expect.fail(`locks ${JSON.stringify(bad)} was taken; the turn then failed with ${String(e)} after ${lm.requests.length} model requests`);
    }
  });

  it("the options it takes still work: null locks leaves liveness out, a fake Web Locks API is used", async () => {
    const name = freshName();
    names.push(name);
    const none = indexedDBStore(name, { locks: null, pollMs: 100, openTimeoutMs: 5_000 });
    expect(none.liveness).toBeUndefined();
    await none.close?.();
    const asked: string[] = [];
    const locks = {
      request: async (lock: string, _opts: unknown, grant: () => Promise<void>) => {
        asked.push(lock);
        return grant();
      },
      query: async () => ({ held: [], pending: [] }),
    };
    const faked = indexedDBStore(name, { locks: locks as unknown as LockManager });
    const release = await faked.liveness!.hold("sam", "t1");
    expect(asked).toEqual([`functai:${name}:sam:t1`]);
    release();
    await faked.close?.();
  });
});
