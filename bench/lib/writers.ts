/**
 * The floor of `concurrent_durable_steps_per_s`: CONCURRENT_TURNS writers at
 * once in one process, each opening a file of its own and appending
 * CONCURRENT_STEPS lines of about 200 bytes, each fsynced (FileHandle.write +
 * sync) before the next: one durable record per changing step, nothing else.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONCURRENT_STEPS, CONCURRENT_TURNS, orderId, type Concurrent } from "./measure.js";

/** A JSON line of about 200 bytes, like one journal record. */
export const line = (i: number) => {
  const rec = {
    functai_conversation: 1,
    kind: "tool",
    seq: i,
    at: new Date(1_700_000_000_000 + i).toISOString(),
    turn: "t1",
    site: "answer#1",
    invocation: i,
    name: "lookup_order",
    state: "started",
    input: { order_id: orderId(i) },
  };
  const s = JSON.stringify(rec);
  return s + " ".repeat(Math.max(0, 199 - s.length)) + "\n";
};

let run = 0;

/** The bare writers as a contender of `concurrentRates`. */
export const bareWriters = (): Concurrent<string> => ({
  o: {
    metric: "concurrent_durable_steps_per_s",
    heapMetric: "concurrent_heap_per_turn_kb",
    name: "bare append+fsync writers",
    how: `${CONCURRENT_TURNS} writers at once, each: open its own file, ${CONCURRENT_STEPS} × (FileHandle.write of a ~200-byte line + sync), close; appends ÷ wall time`,
    cleanup: (dir) => rmSync(dir, { recursive: true, force: true }),
  },
  prepare: () => mkdtempSync(join(tmpdir(), `functai-bench-writers-${run++}-`)),
  run: async (dir, step) => {
    await Promise.all(
      Array.from({ length: CONCURRENT_TURNS }, async (_, w) => {
        const fh = await open(join(dir, `w${w}.jsonl`), "a", 0o600);
        try {
          for (let i = 0; i < CONCURRENT_STEPS; i++) {
            await fh.write(line(i));
            await fh.sync();
            step();
          }
        } finally {
          await fh.close();
        }
      }),
    );
  },
});
