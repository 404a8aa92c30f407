// Real Chromium: close() called right after an append on a handle whose database is still opening (its first use).
import { afterEach, describe, expect, it } from "vitest";
import { deleteDB } from "idb";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { freshName, note } from "./indexeddb-cases.js";

describe("indexedDBStore: close() with an append under way", () => {
  const names: string[] = [];
  afterEach(async () => {
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  // Decided (the lead): an append called before close() on a handle still opening its database (its first use) is
  // refused "is closed", where the same calls on a handle whose database is already open commit. close() ends every
  // wait for an open, which is right for an open another tab blocks (it may never come: indexeddb-opening-cases,
  // "close() while the open waits returns at once"), and the browser does not tell an open that is blocked from one
  // that is merely under way. The README says so: await a handle's first call before closing it.
  it("on a handle still opening its database (its first use), the append is refused store-io and nothing is written", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    const appending = s.append("sam", [note("a")]).then(String, (e: unknown) => e);
    await s.close!();
    expect(await appending).toMatchObject({ code: "store-io", message: expect.stringContaining("is closed") });
    const again = indexedDBStore(name);
    expect(await again.read("sam")).toEqual([]);
    await again.close!();
  });
});
