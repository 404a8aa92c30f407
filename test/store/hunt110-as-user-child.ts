/**
 * A child process for hunt110-permissions.test.ts, run as a user that may not
 * write (or read) the store's folder: `hunt110-as-user-child.ts <dir>
 * <conversation> <lockTimeoutMs>` opens `fsStore(dir)` and calls append,
 * read, length, scan, wait and list once each, printing one JSON line per
 * call: `{ "op", "value" }` or `{ "op", "code", "message" }`, then "done".
 */
import { fsStore } from "../../adapters/node-fs/index.js";

const [dir, conversation, lockTimeoutMs] = process.argv.slice(2);
if (dir === undefined || conversation === undefined || lockTimeoutMs === undefined)
  throw new Error("usage: hunt110-as-user-child.ts <dir> <conversation> <lockTimeoutMs>");
const store = fsStore(dir, { lockTimeoutMs: Number(lockTimeoutMs) });
const note = { functai_conversation: 1, kind: "note", at: "2026-12-06T12:00:00.000Z", text: "from the unprivileged user" };
const calls: [string, () => Promise<unknown>][] = [
  ["append", () => store.append(conversation, [note])],
  ["read", async () => (await store.read(conversation)).map((r) => (r as { text?: unknown }).text)],
  ["length", () => store.length!(conversation)],
  ["scan", () => store.scan!(conversation, 0, () => undefined)],
  ["wait", () => store.wait!(conversation, 0, 10)],
  ["list", () => store.list!()],
];
for (const [op, call] of calls) {
  const line = await call().then(
    (value) => ({ op, value }),
    (e: unknown) => ({ op, code: (e as { code?: unknown }).code, message: (e as Error).message }),
  );
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
await store.close!();
process.stdout.write("done\n");
