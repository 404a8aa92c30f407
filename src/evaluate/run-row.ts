import type { Callable, CallOptions } from "../functions/callable.js";
import { frameCarrier } from "../engine/carrier.js";
import type { Step } from "../engine/runtime.js";
import { describeError, FunctaiError, isInstance } from "../errors.js";
import { newTurnId } from "../ids.js";
import type { TurnCaller } from "../records/types.js";
import { withSettings, type Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import { inputsOf, type Row, type RowShape } from "./rows.js";

/** How the rows of one run are called. */
export interface RowCall {
  fn: Callable<any, any>;
  shape: RowShape;
  caller: TurnCaller;
  signal?: AbortSignal | undefined;
  /** Each row in a one-turn conversation of this store (`<run>-<n>`), its turn record naming the caller. */
  store?: Store | string | undefined;
  /** Keep the model calls (an optimizer's worked examples). */
  keepSteps?: boolean;
  /**
   * The `withSettings` blocks open when the run started (`blockSettings()`).
   * A call takes a block's settings at its synchronous start, and only the
   * first rows start before the run's first await: every row is called
   * inside them, so row 9 uses the same model as row 1.
   */
  block?: Settings;
}

/** What one row's call gave. */
export type RowOutcome = { ok: true; value: unknown; steps: Step[] | null; turn: string | null } | { ok: false; error: string; turn: string | null };

/**
 * `"<code>: <message>"`, as a failed row keeps it. Never throws: a thrown
 * value `String` cannot convert (an object without a prototype) threw again
 * here, and the whole run rejected with a TypeError instead of failing the row.
 */
export const errorText = (e: unknown): string =>
  isInstance(e, FunctaiError) ? `${(e as FunctaiError).code}: ${(e as FunctaiError).message}` : `error: ${describeError(e)}`;

const runId = (call: RowCall): string => ("evaluation" in call.caller ? call.caller.evaluation : call.caller.optimization);

/**
 * Calls the function on one row's inputs, as any call (same approvals); never throws. `rowStop` is the row's own stop,
 * told from the run's signal (`runStops`); without it the row listens on `call.signal` itself.
 */
export async function callRow(call: RowCall, row: Row, index: number, rowStop?: AbortSignal): Promise<RowOutcome> {
  if (!call.signal) return callWith(call, row, index, { caller: call.caller });
  // in a program's or tool's body the rows' calls join its turn, and such a call takes the turn's own signal as it
  // is (ctx.signal): one of evaluate's making was refused (settings-invalid), failing every row
  if (frameCarrier.get()?.runtime.signal === call.signal) return callWith(call, row, index, { caller: call.caller, signal: call.signal });
  if (rowStop !== undefined) return callWith(call, row, index, { caller: call.caller, signal: rowStop });
  // a signal of the row's own, let go when the row ends: a finished call is never told to stop
  const own = new AbortController();
  const stop = (): void => own.abort(call.signal!.reason);
  call.signal.addEventListener("abort", stop, { once: true });
  try {
    return await callWith(call, row, index, { caller: call.caller, signal: own.signal });
  } finally {
    call.signal.removeEventListener("abort", stop);
  }
}

async function callWith(call: RowCall, row: Row, index: number, options: CallOptions): Promise<RowOutcome> {
  const inputs = inputsOf(call.shape, row);
  const inBlock = <T>(start: () => T): T => (call.block === undefined ? start() : withSettings(call.block, start));
  const { store } = call;
  if (store !== undefined) {
    const chat = inBlock(() => call.fn.conversation(`${runId(call)}-${index + 1}`, { store }));
    try {
      return { ok: true, value: await inBlock(() => chat.send(inputs, options)), steps: null, turn: (await chat.turns()).at(-1)?.id ?? null };
    } catch (e) {
      const turn = await chat.turns().then(
        (t) => t.at(-1)?.id ?? null,
        () => null,
      );
      return { ok: false, error: errorText(e), turn };
    }
  }
  try {
    if (!call.keepSteps) return { ok: true, value: await inBlock(() => call.fn(inputs, options)), steps: null, turn: null };
    const p = await inBlock(() => call.fn.predict(inputs, options));
    return { ok: true, value: p.result, steps: p.steps, turn: null };
  } catch (e) {
    return { ok: false, error: errorText(e), turn: null };
  }
}

/** A run's id: a conversation id's characters, sortable by time. */
export const newRunId = (kind: "ev" | "opt"): string => `${kind}-${newTurnId()}`;
