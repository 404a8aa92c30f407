/**
 * A "postgres://…" string store that was closed stays closed: a call after
 * close is refused (store-io, saying so), never a new pool opened behind
 * the caller's back (which nobody would end: the process would not exit).
 */
import { describe, expect, it } from "vitest";
import { lazyPostgresStore } from "../../adapters/postgres/lazy.js";
import { rec } from "../store/contract.js";

describe("a string postgres:// store after close", () => {
  it("refuses calls after close (never opens a new store), and close twice is fine", async () => {
    // a port nobody listens on: a call that reached a new store would say "refused"
    const store = lazyPostgresStore("postgres://app:secret@127.0.0.1:1/app");
    await expect(store.read("c")).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("refused") });
    await store.close!();
    await store.close!();
    const calls = [
      () => store.append("c", [rec()]),
      () => store.read("c"),
      () => store.length!("c"),
      () => store.wait!("c", 0, 10),
      () => store.list!(),
      () => store.liveness!.hold("c", "t"),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("closed") });
  });

  it("a store closed before its first use refuses calls too", async () => {
    const store = lazyPostgresStore("postgres://app:secret@127.0.0.1:1/app");
    await store.close!();
    await expect(store.read("c")).rejects.toMatchObject({ code: "store-io", message: expect.stringContaining("closed") });
  });
});
