/**
 * Conversation ids that differ only in case ("sam", "Sam") on a
 * case-insensitive folder (macOS, Windows; here a real FUSE mount that finds
 * names regardless of case): their files would be one file, so one
 * conversation would read, and append to, the other's records. The store
 * refuses the second id (`conversation-id`), naming the first; the first
 * keeps working, its records untouched.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { spawnScript } from "./fs-children.js";
import { type CaseInsensitiveFolder, mountCaseInsensitive } from "./fixtures/hunt49-casefold.js";

const child = fileURLToPath(new URL("./fixtures/hunt26-child.ts", import.meta.url));

let folder: CaseInsensitiveFolder | undefined;
beforeAll(async () => {
  folder = await mountCaseInsensitive();
  // (CI installs them: apt-get install -y fuse python3-fusepy)
  if (folder === undefined)
    console.warn("[functai] no case-insensitive FUSE mount here (root, /dev/fuse, fuse, python3-fusepy): its tests are skipped.");
});
afterAll(async () => {
  await folder?.unmount();
});

const note = (text: string) => ({ functai_conversation: 1, kind: "note", text });
const codeOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => "no error",
    (e: { code?: unknown }) => e.code,
  );

describe("fs store on a case-insensitive folder", () => {
  it("the mount is case-insensitive (a file is found under another case)", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const store = fsStore(join(folder.dir, "probe"));
    await store.append("probe", [note("x")]);
    expect(await readFile(join(folder.dir, "probe", "conversations", "PROBE.jsonl"), "utf8")).toContain('"x"');
  });

  it("an id differing only in case from an existing conversation is refused on read, length, scan, wait and append", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const dir = join(folder.dir, "desk");
    const store = fsStore(dir);
    expect(await store.append("sam", [note("sam's")])).toBe(1);
    const other = fsStore(dir); // (a fresh store too: nothing known of the file)
    for (const s of [store, other]) {
      expect(await codeOf(s.read("Sam"))).toBe("conversation-id");
      expect(await codeOf(s.length!("SAM"))).toBe("conversation-id");
      expect(await codeOf(s.scan!("sAm", 0, () => {}))).toBe("conversation-id");
      expect(await codeOf(s.wait!("Sam", 0, 10))).toBe("conversation-id");
      expect(await codeOf(s.append("Sam", [note("not sam's")]))).toBe("conversation-id");
      expect(await codeOf(s.append("Sam", [note("not sam's")], { expect: 1 }))).toBe("conversation-id");
    }
    // sam's conversation is as it was, and still works
    expect((await other.read("sam")).map((r) => (r as { text?: unknown }).text)).toEqual(["sam's"]);
    expect(await store.append("sam", [note("more")], { expect: 1 })).toBe(2);
    expect((await other.read("sam")).map((r) => (r as { text?: unknown }).text)).toEqual(["sam's", "more"]);
    expect(await store.list!()).toEqual(["sam"]);
    expect((await readdir(join(dir, "conversations"))).filter((n) => n.endsWith(".jsonl"))).toEqual(["sam.jsonl"]);
  });

  it("the same with the capitalised id first, and ids without letters are unaffected", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const store = fsStore(join(folder.dir, "desk2"));
    expect(await store.append("Ticket-A1", [note("first")])).toBe(1);
    expect(await codeOf(store.append("ticket-a1", [note("second")]))).toBe("conversation-id");
    expect(await codeOf(store.read("TICKET-A1"))).toBe("conversation-id");
    expect((await store.read("Ticket-A1")).map((r) => (r as { text?: unknown }).text)).toEqual(["first"]);
    expect(await store.append("1042", [note("digits")])).toBe(1);
    expect(await store.append("1042", [note("again")], { expect: 1 })).toBe(2);
    expect(await store.wait!("1042", 1, 10)).toBe(true);
    expect(await store.list!()).toEqual(["1042", "Ticket-A1"]);
  });

  it("a wait on an id whose twin is made meanwhile is refused, not woken by the twin's records", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const dir = join(folder.dir, "desk3");
    const store = fsStore(dir);
    const waiting = codeOf(store.wait!("Lea", 0, 20_000));
    await new Promise((r) => setTimeout(r, 100));
    expect(await fsStore(dir).append("lea", [note("lea's")])).toBe(1);
    expect(await waiting).toBe("conversation-id");
  });

  it("processes making ids that differ only in case at once: one conversation, the others refused (conversation-id)", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const dir = join(folder.dir, "desk4");
    const go = join(folder.dir, "go4");
    const ids = ["race", "Race", "RACE", "rAcE"];
    const children = ids.map((id, i) => spawnScript(child, ["first", dir, id, `p${i}`, go]));
    await new Promise((r) => setTimeout(r, 1_500)); // (each child loaded and looking for the go file)
    await writeFile(go, "");
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);
    const said = children.map((c) => c.lines.find((l) => l.startsWith("won") || l.startsWith("lost")));
    expect(said.filter((l) => l === "won 1")).toHaveLength(1);
    expect(said.filter((l) => l === "lost conversation-id")).toHaveLength(3);
    const winner = ids[said.indexOf("won 1")]!;
    expect(await fsStore(dir).list!()).toEqual([winner]);
    expect((await fsStore(dir).read(winner)).map((r) => (r as { tag?: unknown }).tag)).toEqual([`p${said.indexOf("won 1")}`]);
  });

  it("a conversation's file removed and its twin made since: the store that read the first refuses the id now", async (ctx) => {
    if (folder === undefined) return ctx.skip();
    const dir = join(folder.dir, "desk5");
    const store = fsStore(dir);
    expect(await store.append("kim", [note("kim's")])).toBe(1);
    expect((await store.read("kim")).map((r) => (r as { text?: unknown }).text)).toEqual(["kim's"]);
    await rm(join(dir, "conversations", "kim.jsonl"));
    expect(await fsStore(dir).append("Kim", [note("Kim's")])).toBe(1);
    expect(await codeOf(store.read("kim"))).toBe("conversation-id");
    expect(await codeOf(store.append("kim", [note("not Kim's")]))).toBe("conversation-id");
    expect((await fsStore(dir).read("Kim")).map((r) => (r as { text?: unknown }).text)).toEqual(["Kim's"]);
  });

  it("on a folder that tells cases apart (Linux), ids that differ only in case stay two conversations", async () => {
    const base = await mkdtemp(join(tmpdir(), "functai-hunt49-cased-"));
    try {
      const store = fsStore(base);
      expect(await store.append("sam", [note("sam's")])).toBe(1);
      expect(await store.append("Sam", [note("Sam's")])).toBe(1);
      // (a file named as the store never names one, "SAM.JSONL": the folder is listed, and still tells them apart)
      await writeFile(join(base, "conversations", "SAM.JSONL"), "");
      const fresh = fsStore(base);
      expect((await fresh.read("sam")).map((r) => (r as { text?: unknown }).text)).toEqual(["sam's"]);
      expect((await fresh.read("Sam")).map((r) => (r as { text?: unknown }).text)).toEqual(["Sam's"]);
      expect(await fresh.append("Sam", [note("more")], { expect: 1 })).toBe(2);
      expect(await fresh.list!()).toEqual(["Sam", "sam"]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
