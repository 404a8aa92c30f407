/**
 * Real Chromium: a "postgres://…" store names the PostgreSQL store, which runs in Node only. Hunt 76 refused it
 * when a conversation opened it; but `configure({ store: "postgres://…" })` (the usual place to name a store)
 * was taken without a word, and the mistake was told later, at the first conversation of the page, far from the
 * line that made it. The same settings check runs for `withSettings` and `fn.using`: each now refuses it where it
 * is given (`settings-invalid`, the message hunt 76 gives, the password never echoed), and the setting in force
 * stays as it was. And `indexedDBStore("postgres://…")`, called directly, opened an IndexedDB database named after
 * the URL, its password included: refused the same way, before anything is opened.
 */
import { deleteDB } from "idb";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { configure, isFunctaiError, resetConfiguration, withSettings } from "../../src/index.js";
import { platformKind } from "../../src/runtime/stores.js";
import { scripted } from "../../src/testing/index.js";
import { desk } from "../browser/desk.js";

const URL = "postgres://app:s3cret@db.example:5432/app";
const URLS = [URL, "postgresql://app:s3cret@db.example/app", "POSTGRES://db.example/app"];

const databases = async (): Promise<string[]> => (await indexedDB.databases()).map((d) => d.name ?? "");

afterEach(() => resetConfiguration());
afterAll(async () => {
  for (const name of [...URLS, ""]) await deleteDB(name); // (only there when the URL, or "", was taken for a database name)
});

/** What `run` threw: its code and message, or "accepted". */
function refusal(run: () => unknown): string {
  try {
    run();
    return "accepted";
  } catch (e) {
    return isFunctaiError(e) ? `${e.code}: ${e.message}` : `not a FunctaiError: ${String(e)}`;
  }
}

/** The refusal hunt 76 gives for a conversation opened on such a store: one message wherever it is told. */
const NAMED = /^settings-invalid: store "postgres:\/\/…" names the PostgreSQL store, which runs in Node only/;

describe("a postgres:// store in a browser, refused where it is given", () => {
  it("the platform says it is a browser", () => {
    expect(platformKind()).toBe("browser");
  });

  it.each(URLS)("configure({ store: %s }) is refused (settings-invalid), the password never echoed", (url) => {
    const said = refusal(() => configure({ store: url }));
    expect(said).toMatch(NAMED);
    expect(said).not.toContain("s3cret");
  });

  it("a refused configure leaves the store in force as it was", async () => {
    const name = `hunt80-${Math.random().toString(36).slice(2)}`;
    configure({ store: name });
    expect(refusal(() => configure({ store: URL }))).toMatch(NAMED);
    const { fn } = desk();
    try {
      const chat = fn.conversation("sam", { lm: scripted(["Hello."]) });
      await chat.send({ message: "hi" });
      expect(await databases()).toContain(name);
      expect(await databases()).not.toContain(URL);
    } finally {
      resetConfiguration();
      await deleteDB(name).catch(() => undefined);
    }
  });

  it("withSettings({ store }) and fn.using({ store }) are refused too, before the block runs", () => {
    let ran = false;
    expect(
      refusal(() =>
        withSettings({ store: URL }, () => {
          ran = true;
        }),
      ),
    ).toMatch(NAMED);
    expect(ran, "the block never ran").toBe(false);
    const { fn } = desk();
    expect(refusal(() => fn.using({ store: URL }))).toMatch(NAMED);
  });

  it.each(URLS)("indexedDBStore(%s) is refused (settings-invalid) and opens no database", async (url) => {
    const said = refusal(() => indexedDBStore(url));
    expect(said).toMatch(NAMED);
    expect(said).not.toContain("s3cret");
    expect(await databases(), "no IndexedDB database named after the URL").not.toContain(url);
  });
});
