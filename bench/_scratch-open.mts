import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ai } from "../src/index.js";
import { fsStore } from "../adapters/node-fs/index.js";
const dir = mkdtempSync(join(tmpdir(), "open10k-"));
mkdirSync(join(dir, "conversations"), { recursive: true, mode: 0o700 });
const lines: string[] = [];
let seq = 0;
const at = new Date().toISOString();
let parent: string | null = null;
for (let i = 0; i < 10000; i++) {
  const turn = `t${String(i).padStart(6, "0")}`;
  lines.push(JSON.stringify({ functai_conversation: 1, kind: "turn", seq: ++seq, at, turn, parent, program: "p", inputs: { message: `message number ${i}` } }));
  lines.push(JSON.stringify({ functai_conversation: 1, kind: "lease", seq: ++seq, at, turn, holder: "h", until: at, attempt: 1 }));
  lines.push(JSON.stringify({ functai_conversation: 1, kind: "reply", seq: ++seq, at, turn, key: "k" + i, site: "chat#1", response: { text: `answer ${i}`, toolCalls: [], finishReason: "stop", usage: { inputTokens: 10, outputTokens: 5 } } }));
  lines.push(JSON.stringify({ functai_conversation: 1, kind: "ended", seq: ++seq, at, turn, state: "done", outputs: { result: `answer ${i}` }, value: `answer ${i}` }));
  parent = turn;
}
writeFileSync(join(dir, "conversations", "long.jsonl"), lines.join("\n") + "\n", { mode: 0o600 });
const chat = ai("chat", { description: "chat", input: { message: z.string() } });
global.gc?.();
const before = process.memoryUsage();
const t0 = performance.now();
const turns = await chat.conversation("long", { store: fsStore(dir) }).turns();
const ms = performance.now() - t0;
const after = process.memoryUsage();
console.log({ turns: turns.length, ms: ms.toFixed(1), heapMB: ((after.heapUsed - before.heapUsed) / 1e6).toFixed(1), rssMB: (after.rss / 1e6).toFixed(1) });
const s = fsStore(dir);
for (let k = 0; k < 3; k++) {
  const a = performance.now();
  const recs = await s.read("long");
  const b = performance.now();
  const { readConversation } = await import("../src/records/read-conversation.js");
  const st = readConversation(recs, { now: Date.now() });
  const c = performance.now();
  console.log("read", (b - a).toFixed(1), "reader", (c - b).toFixed(1), st.turns.size);
}
