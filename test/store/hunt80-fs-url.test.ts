/**
 * `fsStore(dir)` takes a folder. Given a `postgres://` URL (the Postgres store's location, read from the same
 * DATABASE_URL setting as the rest of the app, say), it made the folder `./postgres:/user:password@host…` under
 * the working directory, the database's password in a path on disk, and kept the conversations there while the
 * app took them for kept in its shared database: other hosts never saw them. It is refused before anything is
 * made (`settings-invalid`, as a `postgres://` store is refused wherever it cannot be that store), the password
 * never echoed. A folder that only looks alike ("./postgres:" written as a path) is still a folder.
 *
 * The store runs in a real child process whose working directory is a fresh folder, so what it makes there is seen.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { isFunctaiError } from "../../src/errors.js";
import { configure, resetConfiguration, withSettings } from "../../src/index.js";
import { platformKind } from "../../src/runtime/stores.js";

const CHILD = fileURLToPath(new URL("./hunt14-append-child.ts", import.meta.url));
/** tsx's loader by its path: the child's working directory is not the project's, where "tsx" would be found. */
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Appends one record through `fsStore(location)` in a child whose working directory is a fresh folder: what it said, and what it made there. */
function appendIn(location: string): { said: string; made: string[] } {
  const cwd = mkdtempSync(join(tmpdir(), "hunt80-url-"));
  dirs.push(cwd);
  let said: string;
  try {
    said = execFileSync(process.execPath, ["--import", TSX, "--conditions=functai-source", CHILD, location, "c", '{"kind":"note"}'], {
      cwd,
      encoding: "utf8",
      timeout: 60_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    said = String((e as { stderr?: string }).stderr ?? e);
  }
  return { said, made: readdirSync(cwd) };
}

const URLS = ["postgres://app:s3cret@db.example:5432/app", "postgresql://app:s3cret@db.example/app", "POSTGRES://db.example/app"];

describe("fsStore given a postgres:// URL", () => {
  it.each(URLS)("fsStore(%s) is refused (settings-invalid), no folder made, the password never echoed", (url) => {
    let refused: unknown;
    try {
      fsStore(url);
    } catch (e) {
      refused = e;
    }
    expect(isFunctaiError(refused) && refused.code).toBe("settings-invalid");
    expect((refused as Error).message).toMatch(/PostgreSQL store/);
    expect((refused as Error).message).not.toContain("s3cret");
  });

  it("in a process of its own: nothing is made in its working directory, and it says why", () => {
    const { said, made } = appendIn(URLS[0]!);
    expect(made, "no folder named after the URL").toEqual([]);
    expect(said).toMatch(/settings-invalid|PostgreSQL store/);
    expect(said).not.toContain("appended");
  });

  it("a folder written as a path is still a folder (./postgres:)", () => {
    const { said, made } = appendIn("./postgres:/chats");
    expect(said).toContain("appended 1");
    expect(made).toEqual(["postgres:"]);
    expect(existsSync(join(dirs.at(-1)!, "postgres:", "chats", "conversations", "c.jsonl"))).toBe(true);
  });

  it("in Node a postgres:// store option is still the Postgres store: configure and withSettings take it (nothing opened yet)", () => {
    expect(platformKind()).toBe("node");
    try {
      expect(() => configure({ store: URLS[0]! })).not.toThrow();
      expect(withSettings({ store: URLS[1]! }, () => "ran")).toBe("ran");
    } finally {
      resetConfiguration();
    }
  });
});
