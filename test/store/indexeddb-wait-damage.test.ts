// fake-indexeddb in Node: a wait that finds the conversation damaged while it waits says so, as every other read does.
import "fake-indexeddb/auto";
import { deleteDB } from "idb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { freshName, note, tamper } from "./indexeddb-cases.js";

const rejection = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describe("indexedDBStore: a wait whose conversation is damaged while it waits", () => {
  const names: string[] = [];
  afterEach(async () => {
    vi.unstubAllGlobals();
    await Promise.all(names.splice(0).map((n) => deleteDB(n)));
  });

  it("at its deadline: store-corrupt, not false (nothing appended) as if all were well", async () => {
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name);
    await s.append("sam", [note("a")]);
    const waiting = rejection(s.wait!("sam", 1, 200));
    await new Promise((r) => setTimeout(r, 50));
    await tamper(name, (_records, lengths) => lengths.put("lots", "sam"));
    expect(isFunctaiError(await waiting, "store-corrupt")).toBe(true);
    await s.close!();
  });

  it("where BroadcastChannel is missing, the poll that finds it: store-corrupt, without waiting out the timeout", async () => {
    vi.stubGlobal("BroadcastChannel", undefined);
    const name = freshName();
    names.push(name);
    const s = indexedDBStore(name, { pollMs: 20 });
    await s.append("sam", [note("a")]);
    const started = performance.now();
    const waiting = rejection(s.wait!("sam", 1, 20_000));
    await new Promise((r) => setTimeout(r, 50));
    await tamper(name, (_records, lengths) => lengths.put(-3, "sam"));
    expect(isFunctaiError(await waiting, "store-corrupt")).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
    await s.close!();
  });

  it("where BroadcastChannel is missing, another handle's append wakes the wait by polling", async () => {
    vi.stubGlobal("BroadcastChannel", undefined);
    const name = freshName();
    names.push(name);
    const [a, b] = [indexedDBStore(name), indexedDBStore(name, { pollMs: 20 })];
    const started = performance.now();
    const waiting = b.wait!("sam", 0, 20_000);
    await new Promise((r) => setTimeout(r, 50));
    await a.append("sam", [note("a")]);
    expect(await waiting).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
    await Promise.all([a.close!(), b.close!()]);
  });

  it("close during a polled wait settles it false, not with the closed handle's store-io", async () => {
    vi.stubGlobal("BroadcastChannel", undefined);
    const s = indexedDBStore(freshName(), { pollMs: 5 });
    const waiting = s.wait!("sam", 0, 20_000);
    await new Promise((r) => setTimeout(r, 30));
    await s.close!();
    expect(await waiting).toBe(false);
  });
});
