import type { Callable, CallOptions } from "../functions/callable.js";
import { Waiting } from "../conversation/turn.js";
import { frameCarrier } from "../engine/carrier.js";
import type { Frame } from "../engine/frame.js";
import type { Definition } from "../functions/definition.js";
import type { Step } from "../engine/runtime.js";
import { STOP_GRACE_MS, StopBound } from "../engine/stop-bound.js";
import { stopsTheTurn } from "../engine/tool-calls.js";
import { describeError, FunctaiError, isInstance } from "../errors.js";
import { newTurnId } from "../ids.js";
import type { TurnCaller } from "../records/types.js";
import { mergeSettings, withSettings, type Settings } from "../settings.js";
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
  /**
   * Send each row's turn with a key (its conversation's id): the run is made
   * in a turn, its id the same each time the turn runs the program again, and
   * a row already sent answers as its first turn did instead of being paid again.
   */
  keyed?: boolean;
  /** In a turn: the row's own place in it, where its call is made (see rowFrames in evaluate.ts). */
  place?: (index: number) => Frame;
}

/** What one row's call gave (a call that stops the run's turn throws instead: see stopsTurn). */
export type RowOutcome = { ok: true; value: unknown; steps: Step[] | null; turn: string | null } | { ok: false; error: string; turn: string | null };

/**
 * `"<code>: <message>"`, as a failed row keeps it. Never throws: a thrown
 * value `String` cannot convert (an object without a prototype) threw again
 * here, and the whole run rejected with a TypeError instead of failing the row.
 */
export const errorText = (e: unknown): string =>
  isInstance(e, FunctaiError) ? `${(e as FunctaiError).code}: ${(e as FunctaiError).message}` : `error: ${describeError(e)}`;

/**
 * Whether what a call (or a metric's judge) made inside a turn threw stops
 * that turn, and so the run with it: the turn waits for a person (the
 * engine's `Suspend`, not an error), its lease was lost, it was stopped, or
 * its journal failed. Taken as the row's failure, a rule's approval was
 * never asked (the program went on, the turn ended done, the tool never ran,
 * the row scored 0), and a turn that lost its lease kept going. A broken
 * plugin is the row's call failing, as it is outside a turn.
 */
export function stopsTurn(e: unknown): boolean {
  const frame = frameCarrier.get();
  return frame !== undefined && stopsTheTurn(e, frame.runtime, "row");
}

const runId = (call: RowCall): string => ("evaluation" in call.caller ? call.caller.evaluation : call.caller.optimization);

/**
 * Calls the function on one row's inputs, as any call (same approvals); throws only what stops the run's turn (stopsTurn). `rowStop` is the row's own stop,
 * told from the run's signal (`runStops`); without it the row listens on `call.signal` itself.
 */
export async function callRow(call: RowCall, row: Row, index: number, rowStop?: AbortSignal): Promise<RowOutcome> {
  if (!call.signal) return callWith(call, row, index, { caller: call.caller });
  // in a program's or tool's body the rows' calls join its turn, and such a call takes the turn's own signal as it
  // is (ctx.signal): one of evaluate's making was refused (settings-invalid), failing every row
  if (frameCarrier.get()?.runtime.signal === call.signal) return callWith(call, row, index, { caller: call.caller, signal: call.signal });
  if (rowStop !== undefined) return boundedByStop(callWith(call, row, index, { caller: call.caller, signal: rowStop }), rowStop);
  // a signal of the row's own, let go when the row ends: a finished call is never told to stop
  const own = new AbortController();
  const stop = (): void => own.abort(call.signal!.reason);
  call.signal.addEventListener("abort", stop, { once: true });
  try {
    return await boundedByStop(callWith(call, row, index, { caller: call.caller, signal: own.signal }), own.signal);
  } finally {
    call.signal.removeEventListener("abort", stop);
  }
}

/**
 * A row's call, bounded by the run's stop: once `stop` aborts, the call has
 * STOP_GRACE_MS to end (one that listens to its signal ends at once, with
 * its own error), then the row fails `turn-aborted` and whatever the call
 * gives later is dropped. A tool or a program body that does not listen to
 * its signal (a fetch without it, a lock wait, a promise never settled)
 * kept the stopped run from ever settling: the engine bounds a tool's run
 * so inside a turn, not a program called on its own. Outside a turn only:
 * in one, the call is the turn's, and stops as it does.
 */
async function boundedByStop(work: Promise<RowOutcome>, stop: AbortSignal): Promise<RowOutcome> {
  if (frameCarrier.get() !== undefined) return work;
  const bound = new StopBound();
  try {
    return await bound.race(work, stop);
  } catch (e) {
    if (!bound.gaveUp) throw e;
    const error = new FunctaiError(
      "turn-aborted",
      `the run was stopped and this row's call did not end within ${STOP_GRACE_MS / 1000} s of it (a tool or a program body that does not listen to its signal); what it gives later is dropped`,
      { cause: stop.reason },
    );
    return { ok: false, error: errorText(error), turn: null };
  }
}

/**
 * In a turn, the settings of a row's conversation: those a call made in the turn runs with (the turn's, under the
 * `withSettings` blocks open as the run began, under the function's own layers: nearest wins), but its lease and
 * store. So who approves (the rule, and the plugins: a toolCall hook may block a call or ask a person about it),
 * and the model and temperature, are a call's in the turn, as they are without a store. A conversation of its own
 * took configure's settings and the function's only, so under a turn whose rule, or plugin, asks about changing
 * tools a row's refund ran unasked, and a function with no model of its own failed every row. Outside a turn
 * (`turn` undefined), nothing (the conversation's own settings are the call's). The run's name (evaluate.ts
 * replySettings) is made with these too.
 */
export function turnSettings(
  fn: { readonly definition: Definition; readonly layers: readonly Settings[] },
  block: Settings | undefined,
  turn: Settings | undefined,
): Settings {
  if (turn === undefined) return {};
  // every setting a call in the turn runs with (its model, temperature, … as without a store), but the turn's own
  // lease and store: the row's conversation is a store's of its own
  const { lease: _lease, store: _store, ...settings } = mergeSettings(turn, block, fn.definition.settings, ...fn.layers);
  return settings;
}

async function callWith(call: RowCall, row: Row, index: number, options: CallOptions): Promise<RowOutcome> {
  const inputs = inputsOf(call.shape, row);
  const inSettings = <T>(start: () => T): T => (call.block === undefined ? start() : withSettings(call.block, start));
  // in a turn, the call is made in the row's own place: numbered by the order the rows' calls began, a run of the
  // turn again that began them in another order found none of their recorded replies
  const place = call.place?.(index);
  const inBlock = <T>(start: () => T): T => (place === undefined ? inSettings(start) : frameCarrier.run(place, () => inSettings(start)));
  const { store } = call;
  if (store !== undefined) {
    const id = `${runId(call)}-${index + 1}`;
    const settings = turnSettings(call.fn, call.block, place?.settings);
    const open = () => call.fn.conversation(id, { store, ...settings });
    // in a turn, opened in a block of those settings: a conversation puts the blocks open as it is opened before the
    // function's own settings, so its plugins run outermost first, the turn's before the function's, as a call's in
    // the turn do. Given as the conversation's own alone, they came last: the function's plugins ran first
    const chat = place === undefined ? inBlock(open) : frameCarrier.run(place, () => withSettings(settings, open));
    const sent = call.keyed ? { ...options, key: id } : options;
    // the row's turn, when its conversation can be read; a read that fails gives none (the row keeps its outcome)
    const latest = () =>
      chat.turns().then(
        (t) => t.at(-1),
        () => undefined,
      );
    const lastTurn = async (): Promise<string | null> => (await latest())?.id ?? null;
    // in a turn run again, a row its conversation already answered (or that waits there) is taken as it stands: sent
    // again, the conversation compared the inputs as the schema reads them, and a default made anew at each read (a
    // timestamp) was "other inputs", the key (evaluate's own) refused and the paid row failed. The run is named by
    // the rows' inputs as given (runVersion), so what this row's conversation holds is this row's
    const found = call.keyed ? await latest() : undefined;
    if (found?.state === "done") return { ok: true, value: found.value, steps: null, turn: found.id };
    if (found?.state === "waiting" && found.waiting.length > 0) return { ok: false, error: errorText(new Waiting(found)), turn: found.id };
    let value: unknown;
    try {
      value = await inBlock(() => chat.send(inputs, sent));
    } catch (e) {
      return { ok: false, error: errorText(e), turn: await lastTurn() };
    }
    // read after the turn answered: a store failing then failed the row, its paid answer dropped and scored 0
    return { ok: true, value, steps: null, turn: await lastTurn() };
  }
  try {
    if (!call.keepSteps) return { ok: true, value: await inBlock(() => call.fn(inputs, options)), steps: null, turn: null };
    if (place !== undefined) {
      // in a turn the run joins it as evaluate's rows do (journaled, under its rules), its model calls kept as predict
      // keeps them: as a turn of its own (predict) a changing tool ran unasked, and again when the turn went on
      const steps: Step[] = [];
      const recording: Frame = { ...place, children: (place.children ??= new Map()), steps };
      return { ok: true, value: await frameCarrier.run(recording, () => inSettings(() => call.fn(inputs, options))), steps, turn: null };
    }
    const p = await inBlock(() => call.fn.predict(inputs, options));
    return { ok: true, value: p.result, steps: p.steps, turn: null };
  } catch (e) {
    // the call joined the run's turn, which waits for a person or stops: the run stops with it (see stopsTurn)
    if (stopsTurn(e)) throw e;
    return { ok: false, error: errorText(e), turn: null };
  }
}

/** A run's id: a conversation id's characters, sortable by time. */
export const newRunId = (kind: "ev" | "opt"): string => `${kind}-${newTurnId()}`;
