/**
 * Real Chromium: a `store` of "postgres://…" names the PostgreSQL store,
 * which runs in Node only (pg, a TCP connection). In a browser the string
 * was taken as an IndexedDB database name: the conversation ran and its
 * records were kept in the browser under a database named after the URL
 * (its password included), while the app believed them on its shared
 * server. It is refused (`settings-invalid`) with a message that says the
 * Postgres store runs in Node, and nothing is written in the browser.
 */
import { deleteDB } from "idb";
import { afterAll, describe, expect, it } from "vitest";
import { FunctaiError, isFunctaiError } from "../../src/index.js";
import { resolveStore } from "../../src/runtime/stores.js";
import { scripted } from "../../src/testing/index.js";
import { desk } from "../browser/desk.js";

const URLS = ["postgres://app:s3cret@db.example:5432/app", "postgresql://app:s3cret@db.example/app", "POSTGRES://db.example/app"];

const databases = async (): Promise<string[]> => (await indexedDB.databases()).map((d) => d.name ?? "");

afterAll(async () => {
  for (const name of URLS) await deleteDB(name); // (only there when the store was taken for a database)
});

describe("a postgres:// store in a browser", () => {
  it.each(URLS)("%s: the conversation is refused (settings-invalid, the Postgres store runs in Node), nothing kept in IndexedDB", async (url) => {
    const { fn } = desk();
    let refused: unknown;
    try {
      const chat = fn.conversation("sam", { store: url, lm: scripted(["Hello."]) });
      await chat.send({ message: "hi" });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(FunctaiError);
    expect(isFunctaiError(refused) && refused.code).toBe("settings-invalid");
    const message = (refused as Error).message;
    expect(message).toMatch(/Node/);
    expect(message).toMatch(/postgresStore|Postgres/);
    expect(message, "the URL's password is never echoed").not.toContain("s3cret");
    expect(await databases(), "no IndexedDB database named after the URL").not.toContain(url);
  });

  it("resolveStore (what serve takes its option through) refuses it too", () => {
    expect(() => resolveStore(URLS[0])).toThrow(expect.objectContaining({ code: "settings-invalid" }));
  });

  it("a plain database name is still an IndexedDB store", async () => {
    const name = `hunt76-${Math.random().toString(36).slice(2)}`;
    const store = resolveStore(name);
    try {
      await store.append("sam", [{ kind: "note" }]);
      expect(await store.read("sam")).toHaveLength(1);
      expect(await databases()).toContain(name);
    } finally {
      await store.close?.();
      await deleteDB(name);
    }
  });
});
