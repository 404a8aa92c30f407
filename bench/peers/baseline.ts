/**
 * Floors, no SDK:
 * - `plain loop`: the tool loop a person writes by hand: an instant model
 *   function, a message list, JSON.parse of the arguments, zod parse of the
 *   input, the tool, JSON.stringify of its result. What any SDK adds is
 *   measured against this.
 * - `bare append+fsync`: Node's fs.promises append of a ~200-byte JSON line to
 *   an open file, then `FileHandle.sync()` (fsync): the cost floor of one
 *   durable record, measured in the same run as the SDKs. Like every per-step
 *   figure, it is the loop's wall time ÷ its appends (a disk's occasional slow
 *   flush counts, as it does in a turn); the median single append, and the
 *   synchronous `fs.writeSync` + `fs.fsyncSync` pair, are in the detail.
 * (`bare append+fsync writers`, the floor of `concurrent_durable_steps_per_s`,
 * runs in ours-concurrent.ts, in the same rounds as our turns: lib/writers.ts.)
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { line } from "../lib/writers.js";
import { z } from "zod";
import {
  FINAL_TEXT, QUESTION, main, median, orderId, report, round, stepSeries, toolOutput,
} from "../lib/measure.js";

type Msg =
  | { role: "user" | "assistant"; content: string; toolCalls?: { id: string; name: string; arguments: string }[] }
  | { role: "tool"; toolCallId: string; content: string };

/** An instant scripted model: n replies asking for one tool call each, then the answer. */
function scriptedModel(n: number) {
  let i = 0;
  return async (_messages: readonly Msg[]): Promise<Msg> => {
    const k = i++;
    if (k < n) {
      return { role: "assistant", content: "", toolCalls: [{ id: `call_${k}`, name: "lookup_order", arguments: JSON.stringify({ order_id: orderId(k) }) }] };
    }
    return { role: "assistant", content: FINAL_TEXT };
  };
}

const lookupInput = z.object({ order_id: z.string() });
const tools: Record<string, { input: z.ZodType<{ order_id: string }>; run: (x: { order_id: string }) => Promise<unknown> }> = {
  lookup_order: { input: lookupInput, run: async ({ order_id }) => toolOutput(order_id) },
};

async function plainLoop(model: (m: readonly Msg[]) => Promise<Msg>): Promise<{ text: string; steps: number }> {
  const messages: Msg[] = [{ role: "user", content: QUESTION }];
  let steps = 0;
  for (;;) {
    const reply = await model(messages);
    messages.push(reply);
    const calls = reply.role === "tool" ? undefined : reply.toolCalls;
    if (!calls?.length) return { text: reply.content, steps };
    steps++;
    for (const c of calls) {
      const t = tools[c.name];
      if (!t) throw new Error(`no tool ${c.name}`);
      const out = await t.run(t.input.parse(JSON.parse(c.arguments)));
      messages.push({ role: "tool", toolCallId: c.id, content: JSON.stringify(out) });
    }
  }
}

async function stepOverhead(): Promise<void> {
  await stepSeries("plain loop", (n) => scriptedModel(n), async (model, n) => {
    const out = await plainLoop(model);
    if (out.steps !== n || out.text !== FINAL_TEXT) throw new Error(`plain loop: ${out.steps} steps`);
  });
}

async function appendFsync(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "functai-bench-fsync-"));
  const COUNT = 300;
  try {
    // async (FileHandle.write + FileHandle.sync), the family the fs store uses
    const runs: number[] = [];
    const medians: number[] = [];
    for (let r = 0; r < 1 + 5; r++) {
      const file = join(dir, `async-${r}.jsonl`);
      const fh = await open(file, "a", 0o600);
      const per: number[] = [];
      const start = performance.now();
      for (let i = 0; i < COUNT; i++) {
        const body = line(i);
        const t0 = performance.now();
        await fh.write(body);
        await fh.sync();
        per.push(performance.now() - t0);
      }
      const total = performance.now() - start;
      await fh.close();
      if (r > 0) {
        runs.push((total * 1000) / COUNT);
        medians.push(median(per) * 1000);
      }
    }
    // sync (writeSync + fsyncSync)
    const syncRuns: number[] = [];
    for (let r = 0; r < 1 + 5; r++) {
      const file = join(dir, `sync-${r}.jsonl`);
      const fd = openSync(file, "a", 0o600);
      const start = performance.now();
      for (let i = 0; i < COUNT; i++) {
        writeSync(fd, line(i));
        fsyncSync(fd);
      }
      const total = performance.now() - start;
      closeSync(fd);
      if (r > 0) syncRuns.push((total * 1000) / COUNT);
    }
    const bytes = statSync(join(dir, "async-1.jsonl")).size / COUNT;
    report({
      metric: "bare_append_fsync_us", n: null, unit: "us", name: "bare append+fsync",
      value: round(median(runs)),
      detail: {
        method: `fs.promises FileHandle.write + sync, ${COUNT} appends per run, wall time ÷ appends, median of 5 runs after 1 warm-up`,
        bytes_per_line: bytes, runs_us: runs.map((x) => round(x)),
        median_single_append_us: round(median(medians)),
        sync_api_us: round(median(syncRuns)), tmpdir: tmpdir(),
      },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main({ "plain-loop": stepOverhead, "append-fsync": appendFsync });
