/**
 * Child of fs-descriptors.test.ts, run under a low descriptor limit
 * (`ulimit -n`): appends to more conversations than it may open files, one
 * append at a time, then prints each conversation's length as read back.
 */
import { fsStore } from "../../adapters/node-fs/index.js";

const [dir, count, rounds] = process.argv.slice(2);
const store = fsStore(dir!); // openFiles: the default (more than this process may open)
const ids = Array.from({ length: Number(count) }, (_, i) => `c${i}`);
for (let r = 0; r < Number(rounds); r++)
  for (const id of ids) await store.append(id, [{ functai_conversation: 1, kind: "note", at: "2026-12-01T00:00:00.000Z", round: r }], { expect: r });
await store.close?.();
const reader = fsStore(dir!);
const lengths: number[] = [];
for (const id of ids) lengths.push(await reader.length!(id));
process.stdout.write(`${JSON.stringify(lengths)}\n`);
