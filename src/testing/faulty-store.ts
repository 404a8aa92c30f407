import { FunctaiError } from "../errors.js";
import type { Store } from "../store/types.js";
import { isDurable } from "../store/checks.js";

/**
 * How an injected fault strikes an append:
 * - `"before-write"`: it throws and nothing is written (a failed write);
 * - `"after-write"`: the inner store writes the batch, then it throws before
 *   acknowledging (a crash between the write and the reply).
 */
export type Fault = "before-write" | "after-write";

/** One append call, as the plan sees it. `call` counts every append call from 1. */
export interface AppendCall {
  call: number;
  conversation: string;
  records: readonly object[];
  expect: number | undefined;
  /** False only for an append told `durable: false` (a missing flag is durable, as in every store). */
  durable: boolean;
}

export interface FaultPlan {
  /** Which appends fail: `{ 3: "after-write" }` by call number, or a function of the call. */
  failOn?: Readonly<Record<number, Fault>> | ((call: AppendCall) => Fault | undefined);
  /** After the first fault every call throws, like a process that died (default false). */
  crash?: boolean;
  /** Milliseconds to wait before each append and read reach the inner store. */
  delayMs?: number | ((call: AppendCall | undefined) => number);
}

/** What went through the wrapper. A written batch counts even when its acknowledgement was lost. */
export interface FaultyStoreStats {
  /** Append calls made, failed or not. */
  calls: number;
  /** Batches the inner store wrote (non-empty appends it accepted). */
  appends: number;
  /** Of those, durable batches: every batch not told `durable: false`. */
  durableAppends: number;
  /** Records written. */
  records: number;
  /** Faults injected. */
  faults: number;
}

/** The error an injected fault throws (`store-io`). */
export class InjectedFault extends FunctaiError {
  readonly fault: Fault | "crashed";
  readonly call: number;
  constructor(fault: Fault | "crashed", call: number) {
    super("store-io", `injected store fault (${fault}) on append call ${call}`);
    this.name = "InjectedFault";
    this.fault = fault;
    this.call = call;
  }
}

export interface FaultyStore extends Store {
  readonly stats: FaultyStoreStats;
  /** The wrapped store, to look behind the faults (e.g. after a simulated crash). */
  readonly inner: Store;
  /** True once a fault struck with `crash: true`. */
  readonly crashed: boolean;
}

const PLAN_KEYS = new Set(["failOn", "crash", "delayMs"]);

/** A delay as milliseconds, 0 or more; a NaN, negative or endless one would be no delay, or setTimeout's 1 ms. */
function checkedDelay(ms: unknown, where: string): number {
  if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return ms;
  throw new FunctaiError("settings-invalid", `faultyStore: ${where} is ${typeof ms === "string" ? JSON.stringify(ms) : String(ms)}; give a number of milliseconds, 0 or more.`);
}

/**
 * Refuses a plan that would inject nothing because of a slip: a key a plan
 * does not have (`failsOn`), a call number never made (calls count from 1),
 * a fault misspelt, a delay that is not a number of milliseconds.
 */
function checkPlan(plan: FaultPlan, checked: (fault: unknown, where: string) => Fault | undefined): void {
  if (typeof plan !== "object" || plan === null) throw new FunctaiError("settings-invalid", `faultyStore: its plan is ${plan === null ? "null" : typeof plan}; give e.g. { failOn: { 2: "after-write" } }.`);
  const odd = Object.keys(plan).filter((k) => !PLAN_KEYS.has(k));
  if (odd.length > 0) throw new FunctaiError("settings-invalid", `faultyStore: the plan has ${odd.map((k) => JSON.stringify(k)).join(", ")}; a plan has failOn, crash and delayMs.`);
  const { failOn, crash, delayMs } = plan;
  if (failOn !== undefined && typeof failOn !== "function") {
    if (typeof failOn !== "object" || failOn === null || Array.isArray(failOn))
      throw new FunctaiError("settings-invalid", "faultyStore: failOn is neither an object of call numbers ({ 2: \"after-write\" }) nor a function.");
    for (const [call, fault] of Object.entries(failOn)) {
      if (!/^[1-9]\d*$/.test(call)) throw new FunctaiError("settings-invalid", `faultyStore: failOn[${call}] names no append call; calls count from 1.`);
      checked(fault, `failOn[${call}]`);
    }
  }
  if (crash !== undefined && typeof crash !== "boolean") throw new FunctaiError("settings-invalid", `faultyStore: crash is ${String(crash)}; give true or false.`);
  if (delayMs !== undefined && typeof delayMs !== "function") checkedDelay(delayMs, "delayMs");
}

/**
 * Wraps a store to inject faults and count writes, for tests: throw on the
 * Nth append before or after the write, die after a fault, delay calls.
 *
 * @example
 * ```ts
 * const store = faultyStore(memoryStore(), { failOn: { 2: "after-write" }, crash: true });
 * await store.append("c", [rec]);            // ok
 * await store.append("c", [rec]);            // written, then throws InjectedFault
 * await store.inner.read("c");               // both records are there
 * store.stats;                               // { calls: 2, appends: 2, records: 2, faults: 1, … }
 * ```
 */
export function faultyStore(inner: Store, plan: FaultPlan = {}): FaultyStore {
  const stats: FaultyStoreStats = { calls: 0, appends: 0, durableAppends: 0, records: 0, faults: 0 };
  let crashed = false;

  // a misspelt fault ("before_write") would inject nothing, and a test of a failing store would pass with none
  const checked = (fault: unknown, where: string): Fault | undefined => {
    if (fault === undefined || fault === "before-write" || fault === "after-write") return fault;
    throw new FunctaiError("settings-invalid", `faultyStore: ${where} is ${JSON.stringify(fault) ?? String(fault)}; give "before-write" or "after-write".`);
  };
  checkPlan(plan, checked);
  const faultFor = (c: AppendCall): Fault | undefined =>
    typeof plan.failOn === "function" ? checked(plan.failOn(c), `failOn's answer for append call ${c.call}`) : plan.failOn?.[c.call];
  const delay = async (c: AppendCall | undefined): Promise<void> => {
    const ms = typeof plan.delayMs === "function" ? checkedDelay(plan.delayMs(c), `delayMs's answer for ${c ? `append call ${c.call}` : "a read"}`) : (plan.delayMs ?? 0);
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  };
  const alive = (call: number): void => {
    if (crashed) throw new InjectedFault("crashed", call);
  };
  const strike = (fault: Fault, call: number): never => {
    stats.faults++;
    if (plan.crash) crashed = true;
    throw new InjectedFault(fault, call);
  };

  const store: FaultyStore = {
    stats,
    inner,
    get crashed() {
      return crashed;
    },
    ...(inner.durability === undefined ? {} : { durability: inner.durability }),
    ...(inner.liveness === undefined ? {} : { liveness: inner.liveness }),

    async append(conversation, records, opts) {
      const c: AppendCall = {
        call: ++stats.calls,
        conversation,
        records,
        expect: opts?.expect,
        durable: isDurable(opts),
      };
      alive(c.call);
      await delay(c);
      alive(c.call);
      const fault = faultFor(c);
      if (fault === "before-write") strike(fault, c.call);
      const length = await inner.append(conversation, records, opts);
      if (records.length > 0) {
        stats.appends++;
        if (c.durable) stats.durableAppends++;
        stats.records += records.length;
      }
      if (fault === "after-write") strike(fault, c.call);
      return length;
    },

    async read(conversation, after) {
      alive(stats.calls);
      await delay(undefined);
      alive(stats.calls);
      return inner.read(conversation, after);
    },
  };
  // Optional methods exist only when the inner store has them; each refuses once crashed (scan and lengths too:
  // dropped, a test through the wrapper took another path than the store's own, and a crashed store answered).
  if (inner.wait !== undefined) {
    const wait = inner.wait.bind(inner);
    store.wait = async (conversation, after, timeoutMs) => {
      alive(stats.calls);
      return wait(conversation, after, timeoutMs);
    };
  }
  if (inner.list !== undefined) {
    const list = inner.list.bind(inner);
    store.list = async () => {
      alive(stats.calls);
      return list();
    };
  }
  if (inner.length !== undefined) {
    const length = inner.length.bind(inner);
    store.length = async (conversation) => {
      alive(stats.calls);
      return length(conversation);
    };
  }
  if (inner.scan !== undefined) {
    const scan = inner.scan.bind(inner);
    // a read by another way: delayed and refused as read is
    store.scan = async (conversation, after, visit) => {
      alive(stats.calls);
      await delay(undefined);
      alive(stats.calls);
      return scan(conversation, after, visit);
    };
  }
  if (inner.lengths !== undefined) {
    const lengths = inner.lengths.bind(inner);
    store.lengths = async () => {
      alive(stats.calls);
      return lengths();
    };
  }
  if (inner.close !== undefined) store.close = inner.close.bind(inner);
  // any other method the store has (an adapter's own): passed on, refused once crashed, so a test through the
  // wrapper takes the path the store itself takes
  for (const key of Object.keys(inner) as (keyof Store)[]) {
    const method = inner[key];
    if (key in store || typeof method !== "function") continue;
    (store as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      alive(stats.calls);
      return (method as (...a: unknown[]) => unknown).apply(inner, args);
    };
  }
  return store;
}
