/**
 * What every store checks and how it words a refusal (memory, node-fs,
 * IndexedDB): the conversation id, the records of a batch, a lost race.
 */
import { ConversationError, FunctaiError, describeError, describeValue } from "../errors.js";
import { MAX_TIMER_MS } from "../runtime/clock.js";
import { isConversationId } from "./types.js";

/** Throws `conversation-id` unless `id` is a valid conversation id. Shared by the stores. */
export function checkConversationId(id: unknown): asserts id is string {
  if (!isConversationId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id) : typeof id;
    throw new ConversationError(
      "conversation-id",
      `${shown} is not a conversation id: use 1–200 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  }
}

/**
 * Throws `input-invalid` unless every record is a plain (non-array) object. Checked before anything is written.
 * Gives the batch as it is now, a copy of the array: a record's getter or toJSON that pushes to or cuts the caller's
 * array while the batch is written changes nothing of it (a store that counted the caller's array wrote a length
 * that disagreed with its records, or left a hole).
 */
export function checkRecords<T extends object>(conversation: string, records: readonly T[]): T[] {
  if (!Array.isArray(records)) throw new FunctaiError("input-invalid", `${conversation}: append takes an array of records.`);
  for (let i = 0; i < records.length; i++) {
    const r: unknown = records[i];
    if (typeof r !== "object" || r === null || Array.isArray(r)) {
      const what = r === null ? "null" : Array.isArray(r) ? "an array" : typeof r;
      throw new FunctaiError("input-invalid", `${conversation}: record ${i + 1} of the batch is not an object (${what}).`);
    }
  }
  return [...records];
}

/**
 * A record's JSON, as a store writes it: `input-invalid` when it is not JSON
 * (a BigInt, a cycle) or not a JSON object (a `toJSON` giving another value:
 * written, every read of its conversation would fail). Checked before
 * anything of the batch is written.
 */
export function recordJson(conversation: string, record: object, index: number): string {
  let body: string | undefined;
  try {
    body = JSON.stringify(record);
  } catch (e) {
    throw new FunctaiError("input-invalid", `${conversation}: record ${index + 1} of the batch is not JSON (${describeError(e)}).`, { cause: e });
  }
  if (body === undefined || !body.startsWith("{"))
    throw new FunctaiError("input-invalid", `${conversation}: record ${index + 1} of the batch does not serialise to a JSON object (a toJSON that gives another value?).`);
  return body;
}

/**
 * Throws `input-invalid` unless an append's `expect` is left out or is a
 * length (a whole number, 0 or more). Any other value can never equal a
 * length: it would be refused as a `store-conflict` that no retry can win,
 * with a message that says the conversation holds what the caller expected.
 */
export function checkExpect(conversation: string, expect: unknown): void {
  if (expect === undefined || (Number.isSafeInteger(expect) && (expect as number) >= 0)) return;
  throw new FunctaiError("input-invalid", `${conversation}: expect is a number of records (a whole number, 0 or more), not ${describeValue(expect, 40)}.`);
}

/**
 * Throws `input-invalid` unless a read's or a wait's `after` is a number
 * (negative reads all, `Infinity` none). NaN is no place: compared with it,
 * no record comes after and every record does, as the code happens to ask.
 */
export function checkAfter(conversation: string, after: unknown): void {
  if (typeof after === "number" && !Number.isNaN(after)) return;
  throw new FunctaiError("input-invalid", `${conversation}: after is a number of records, not ${describeValue(after, 40)}.`);
}

/**
 * Throws `input-invalid` unless a wait's `timeoutMs` is a number (NaN, 0 or
 * less: it looks once; `Infinity`: no timeout; any finite number, however
 * long). Anything else was coerced as each store's arithmetic happened to:
 * `"60000"` waited 60 s in one store and answered false at once in another
 * (`performance.now() + "60000"` is a text), `undefined` looked once, a
 * BigInt threw a TypeError. Checked before anything is looked at.
 */
export function checkTimeout(conversation: string, timeoutMs: unknown): asserts timeoutMs is number {
  if (typeof timeoutMs === "number") return;
  throw new FunctaiError(
    "input-invalid",
    `${conversation}: wait's timeoutMs is a number of milliseconds (Infinity: no timeout; 0: look once), not ${describeValue(timeoutMs, 40)}.`,
  );
}

/**
 * Throws `input-invalid` unless a scan's `visit` is a function: else a
 * TypeError at the first record, or, with no record after `after`, no
 * word at all of the caller's slip. Checked before anything is read.
 */
export function checkVisit(conversation: string, visit: unknown): asserts visit is (...args: never[]) => unknown {
  if (typeof visit === "function") return;
  throw new FunctaiError("input-invalid", `${conversation}: scan's visit is a function, not ${describeValue(visit, 40)}.`);
}

/**
 * How long a store's `wait` waits: a timeout that is no time (NaN,
 * negative) looks once (0); `Infinity` sets no timer (null): it waits for
 * an append, or the store's close. Any finite timeout is kept, however
 * long: {@link waitTimer} sets it in parts.
 */
export const waitTimerMs = (timeoutMs: number): number | null => {
  // biome-ignore lint/complexity/useMathMinMax: Math.max(0, NaN) is NaN; a NaN timeout must look once
  const ms = timeoutMs > 0 ? timeoutMs : 0;
  return ms === Number.POSITIVE_INFINITY ? null : ms;
};

/**
 * Calls `fn` once after `ms` (by the monotonic clock), however long: a
 * timer holds at most 2^31−1 ms (about 24.8 days; Node fires a longer one
 * after 1 ms), so a longer wait is set in parts. Returns what cancels it.
 */
export function waitTimer(ms: number, fn: () => void): () => void {
  const deadline = performance.now() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number): void => {
    timer = setTimeout(
      () => {
        const rest = deadline - performance.now();
        if (rest > 0 && left > MAX_TIMER_MS) arm(rest);
        else fn();
      },
      Math.min(left, MAX_TIMER_MS),
    );
  };
  arm(ms);
  return () => clearTimeout(timer);
}

/** Whether an append must be kept on disk before it resolves: the contract's default, unless told `durable: false`. Shared by the stores. */
export const isDurable = (opts: { durable?: boolean } | undefined): boolean => opts?.durable !== false;

/** The `store-conflict` error, worded the same by every store. */
export function storeConflict(conversation: string, expected: number, actual: number): ConversationError {
  return new ConversationError(
    "store-conflict",
    `${conversation}: expected ${expected} records, found ${actual} (another writer appended first). Read again and retry.`,
  );
}
