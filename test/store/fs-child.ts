/**
 * A child process for the fs store's cross-process tests (fs.test.ts).
 *   append <dir> <conversation> <batches> <tag> [lockStaleMs]: appends `batches` batches
 *     of 1–3 records, each with `expect` and retries on conflict; prints "ack <batch> <size>"
 *     once a batch is acknowledged, "done" at the end.
 *   hold <dir> <conversation>: takes the conversation's lock, prints "locked", never lets go.
 *   burst <dir> <conversation>: appends one record after another with nothing in between (each
 *     append still lets its lock go before it resolves), prints "bursting" after
 *     the first, and "appended <n>" and exits when its file holds a record it did not write.
 *   slow-tool <dir> <conversation> <ms>: sends one turn whose changing tool works synchronously
 *     for <ms> ms (no await: the event loop stands still); prints "in tool" as it starts,
 *     "tool done" as it ends, and "outcome <answer or error code>" once the turn ends.
 */
import { join, resolve } from "node:path";
import { fsStore } from "../../adapters/node-fs/index.js";
import { acquire } from "../../adapters/node-fs/lock.js";
import { isFunctaiError } from "../../src/errors.js";

const [mode, dir, conversation, ...rest] = process.argv.slice(2);
if (dir === undefined || conversation === undefined) throw new Error("usage: fs-child.ts <mode> <dir> <conversation> …");

if (mode === "hold") {
  const lock = join(resolve(dir), "conversations", `${conversation}.jsonl.lock`);
  await acquire(lock, { staleMs: 60_000, timeoutMs: 30_000 });
  process.stdout.write("locked\n");
  setInterval(() => undefined, 1_000_000);
} else if (mode === "append") {
  const [batches = "10", tag = `p${process.pid}`, staleMs = "5000"] = rest;
  const store = fsStore(dir, { lockStaleMs: Number(staleMs) });
  for (let b = 0; b < Number(batches); b++) {
    const size = 1 + (b % 3);
    const batch = `${tag}-${b}`;
    const records = Array.from({ length: size }, (_, i) => ({
      functai_conversation: 1,
      kind: "test",
      at: new Date().toISOString(),
      batch,
      i,
      size,
    }));
    for (;;) {
      const length = await store.length!(conversation);
      try {
        await store.append(conversation, records, { expect: length });
        break;
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict")) throw e;
      }
    }
    process.stdout.write(`ack ${batch} ${size}\n`);
  }
  process.stdout.write("done\n");
} else if (mode === "thread-hold") {
  // a worker thread of this process holds the lock ("hold", below); then this thread appends, with a short timeout
  const { Worker } = await import("node:worker_threads");
  // (a worker does not inherit tsx's loader: it registers it, then runs this file)
  const boot = `import("tsx/esm/api").then((tsx) => tsx.register()).then(() => import(${JSON.stringify(import.meta.url)}))`;
  const worker = new Worker(boot, { eval: true, argv: ["hold", dir, conversation], stdout: true });
  await new Promise<void>((locked, failed) => {
    let out = "";
    worker.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("locked\n")) locked();
    });
    worker.on("error", failed);
  });
  const outcome = await fsStore(dir, { lockTimeoutMs: 300, lockStaleMs: 100 })
    .append(conversation, [{ functai_conversation: 1, kind: "test", at: new Date().toISOString() }])
    .then(
      () => "appended",
      (e: unknown) => (isFunctaiError(e, "store-io") ? "store-io" : `error ${String(e)}`),
    );
  process.stdout.write(`append ${outcome}\n`);
  await worker.terminate();
} else if (mode === "burst") {
  const store = fsStore(dir);
  const mine = (n: number) => ({ functai_conversation: 1, kind: "burst", at: new Date().toISOString(), n });
  let n = await store.append(conversation, [mine(0)]);
  process.stdout.write("bursting\n");
  for (let i = 1; ; i++) {
    const before = n;
    n = await store.append(conversation, [mine(i)]);
    if (n !== before + 1) break; // someone else got in between two of our appends
  }
  process.stdout.write(`appended ${n}\n`);
} else if (mode === "slow-tool") {
  const { z } = await import("zod");
  const { ai, tool } = await import("../../src/index.js");
  const { scripted } = await import("../../src/testing/index.js");
  const ms = Number(rest[0] ?? "3000");
  const busy = tool("busy", { description: "Works a while.", input: {}, effects: "changes" }, () => {
    process.stdout.write("in tool\n"); // (a pipe: written before this returns, on Linux)
    const until = Date.now() + ms;
    while (Date.now() < until); // synchronous work: no timer, no I/O, nothing else of this process runs
    process.stdout.write("tool done\n");
    return "worked";
  });
  const work = ai("work", { description: "Do the work.", input: { q: z.string() }, tools: [busy] });
  const lm = scripted([{ toolCalls: [{ name: "busy", input: {} }] }, "finished"]);
  const chat = work.conversation(conversation, { store: fsStore(dir), lm });
  const outcome = await chat.send("go").then(
    (answer) => String(answer),
    (e: unknown) => (isFunctaiError(e) ? e.code : String(e)),
  );
  process.stdout.write(`outcome ${outcome}\n`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
