/**
 * A string `store` is a directory path in Node (the file-system store) or a
 * `postgres://` URL (DESIGN "Layout": "A string store resolves to the
 * file-system store in Node … (a postgres://… string to the Postgres
 * store)"). A location that starts with some other URL scheme
 * (`redis://…`, `mysql://…`, `https://…`, `file:///…`, `sqlite:…`) names a
 * store functai does not have: it was taken for a relative path, and the
 * journal went, without a word, to a directory such as `./redis:/localhost:6379`
 * under the working directory (and `file:///tmp/chats` to `./file:/tmp/chats`,
 * not to /tmp/chats). It is refused (`settings-invalid`) wherever it is given,
 * before anything is written, with a message that says what to give instead;
 * the message names the scheme only, never the rest of the URL (a password).
 * `"memory"` (and SQLite's `":memory:"`) asked for a store that forgets and got
 * a directory `./memory`, kept on disk: refused, naming `memoryStore()` and
 * `"./memory"` (the directory, when that is what is meant). `"~/chats"` (a
 * home directory only a shell expands) was the directory `./~/chats`: refused
 * the same way, naming `homedir()`. A location with white space at an end
 * (read from a file or an environment variable, untrimmed) named another
 * directory (`" postgres://…"` a directory `" postgres:"`): refused, saying trim it.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { serve } from "../../adapters/websocket/index.js";
import { ai, configure, resetConfiguration, withSettings } from "../../src/index.js";
import { closeStores, resolveStore } from "../../src/runtime/stores.js";
import { scripted } from "../../src/testing/index.js";
import { refusal } from "../fixtures/refused.js";

const cwd = process.cwd();
const dirs: string[] = [];

afterEach(async () => {
  process.chdir(cwd);
  resetConfiguration();
  await closeStores();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh, empty working directory: whatever a store string made there is seen. */
const inEmptyDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "functai-h64-"));
  dirs.push(dir);
  process.chdir(dir);
  return dir;
};

const UNKNOWN = [
  "redis://app:s3cret@localhost:6379",
  "mysql://app:s3cret@db/app",
  "https://example.com/chats",
  "file:///tmp/chats",
  "sqlite:chats.db",
  "mongodb+srv://app:s3cret@cluster0.example.net/chats",
];

const desk = ai("desk", { description: "Help.", input: { message: z.string() } });

describe("a store location with a URL scheme functai has no store for", () => {
  for (const location of UNKNOWN) {
    it(`${location.replace(/:\/\/.*@/, "://…@")}: refused where it is given (settings-invalid), nothing written`, async () => {
      const dir = await inEmptyDir();
      const scheme = location.slice(0, location.indexOf(":"));
      const checks: (() => unknown)[] = [
        () => resolveStore(location),
        () => configure({ store: location }),
        () => withSettings({ store: location }, () => undefined),
        () => desk.using({ store: location }),
        () => desk.conversation("sam", { store: location }),
      ];
      for (const check of checks) {
        const e = refusal(check);
        expect(e.code).toBe("settings-invalid");
        expect(e.message).toContain(`"${scheme}:`); // names the scheme it does not know
        expect(e.message).toMatch(/postgres:\/\//); // and what a string may be
        expect(e.message).toMatch(/Store/); // or what to pass instead
        expect(e.message).not.toContain("s3cret"); // never the URL's password
      }
      // the send of a conversation whose store came from configure: no configure took it, so nothing to send through
      const lm = scripted(["<result>\nhello\n</result>"]);
      await expect((async () => desk.conversation("sam", { store: location, lm }).send("hi"))()).rejects.toMatchObject({ code: "settings-invalid" });
      expect(lm.requests).toHaveLength(0);
      expect(await readdir(dir)).toEqual([]); // no directory named after the URL
    });
  }

  it('"memory" and ":memory:" (a store that forgets, as asked) are refused, naming memoryStore(): they were a directory kept on disk', async () => {
    const dir = await inEmptyDir();
    for (const location of ["memory", "Memory", ":memory:"]) {
      for (const check of [() => resolveStore(location), () => configure({ store: location }), () => desk.conversation("sam", { store: location })]) {
        const e = refusal(check);
        expect(e.code).toBe("settings-invalid");
        expect(e.message).toContain("memoryStore()");
        expect(e.message).toContain(`"./${location}"`); // how to name a directory so, when that is what is meant
      }
    }
    await resolveStore("./memory").append("a", [{ functai_conversation: 1, kind: "stop", at: "2026-12-03T10:00:00.000Z", turn: "t1" }]);
    expect(await readdir(dir)).toEqual(["memory"]); // written as a path, it is the directory
  });

  it('"~/chats" (a home directory only a shell expands) is refused: it was the directory "./~/chats" under the working directory', async () => {
    const dir = await inEmptyDir();
    for (const location of ["~/chats", "~", "~maria/chats"]) {
      for (const check of [() => resolveStore(location), () => configure({ store: location }), () => desk.conversation("sam", { store: location })]) {
        const e = refusal(check);
        expect(e.code).toBe("settings-invalid");
        expect(e.message).toContain("homedir()");
        expect(e.message).toContain(`"./${location}"`);
      }
    }
    await resolveStore("./~/chats").append("a", [{ functai_conversation: 1, kind: "stop", at: "2026-12-03T10:00:00.000Z", turn: "t1" }]);
    expect(await readdir(dir)).toEqual(["~"]); // written as a path, it is that directory
  });

  it("a location with white space at an end (read from a file or the environment) is refused: it named another directory", async () => {
    const dir = await inEmptyDir();
    for (const location of [" postgres://app:s3cret@127.0.0.1:1/app", "chats/ ", "chats\n", "\tchats", " "]) {
      for (const check of [() => resolveStore(location), () => configure({ store: location }), () => desk.conversation("sam", { store: location })]) {
        const e = refusal(check);
        expect(e.code).toBe("settings-invalid");
        expect(e.message).toMatch(/white space/);
        expect(e.message).toContain("trim");
        expect(e.message).not.toContain("s3cret");
      }
    }
    expect(await readdir(dir)).toEqual([]); // (before: " postgres:" and "chats" holding " ", made at the first append)
  });

  it("serve({ store }) is refused before it listens", async () => {
    const dir = await inEmptyDir();
    let server: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const e = await serve({ store: "redis://localhost:6379", programs: [], port: 0 }).then(
        (s) => ((server = s), null),
        (error: unknown) => error,
      );
      expect(e).toMatchObject({ code: "settings-invalid" });
    } finally {
      await server?.close();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("paths still work: relative, absolute, with a colon further on (./notes:2026), a Windows drive letter; postgres URLs stay URLs", async () => {
    const dir = await inEmptyDir();
    const record = { functai_conversation: 1, kind: "stop", at: "2026-12-03T10:00:00.000Z", turn: "t1" };
    for (const location of ["chats/", "./notes:2026", join(dir, "abs"), "C:chats"]) {
      await resolveStore(location).append("a", [record]);
    }
    expect((await readdir(dir)).sort()).toEqual(["C:chats", "abs", "chats", "notes:2026"]);
    for (const url of ["postgres://app@127.0.0.1:1/app", "POSTGRESQL://app@127.0.0.1:1/app"]) {
      expect(() => configure({ store: url })).not.toThrow();
      expect(typeof resolveStore(url).append).toBe("function");
    }
    expect((await readdir(dir)).sort()).toEqual(["C:chats", "abs", "chats", "notes:2026"]);
  });
});
