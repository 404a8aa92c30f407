import type { z } from "zod";
import { keptInputs, parseInput } from "../functions/definition.js";
import { isAbortSignal, type CallInput, type CallOptions } from "../functions/input.js";
import { ConversationError, describeError, describeValue, FunctaiError, isFunctaiError } from "../errors.js";
import { digest } from "../lm/digest.js";
import { newTurnId } from "../ids.js";
import { makeRecord, type RecordFields } from "../records/make.js";
import type { ConversationState } from "../records/read-conversation.js";
import type { TurnCaller } from "../records/types.js";
import { checkModel } from "../engine/ai-call.js";
import { ambientSettings, blockSettings, checkSettings, mergeSettings, pickSettings, SETTING_KEYS, type Settings } from "../settings.js";
import { namedKeys, unknownKeys } from "../runtime/values.js";
import { isConversationId, type Store } from "../store/types.js";
import { startTurn, type TurnSession } from "../turn/session.js";
import type { TurnStream } from "../turn/stream.js";
import type { Definition } from "../functions/definition.js";
import { abortError, type LeaseLost } from "../engine/runtime.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import { resolveStore } from "../runtime/stores.js";
import { sameJson } from "./answers.js";
import { keepSnapshots, recordedError, resultOrWait, startSent, type ConversationContext } from "./driver.js";
import { linkSignal } from "../turn/run.js";
import { ConversationHost } from "./host.js";
import { EarlyLock } from "./lease.js";
import { ConversationLog, historyOf, lengthOf } from "./log.js";
import { ConversationStream } from "./stream.js";
import { Turn, Waiting } from "./turn.js";
import { untilAborted, whenAborted } from "../runtime/abort.js";
import { issuesText, readWith } from "../schema-read.js";

/**
 * A conversation's options: where it is kept (`store`), its clock, and any
 * setting for its turns.
 *
 * @example
 * const options: ConversationOptions = { store: "desk-chats/", approve: "changes" };
 * const chat = desk.conversation("sam", options);
 */
export interface ConversationOptions extends Settings {
  /** Where turns are kept: a Store, or a string (a folder in Node, an IndexedDB database in browsers). */
  store?: Store | string;
  /** Where time comes from for leases and records (tests: `fakeClock()` from `functai/testing`). */
  clock?: Clock;
}

/**
 * A conversation: turns kept in a store; a turn that waits for a person is saved and answered from anywhere.
 *
 * @example
 * const chat: Conversation<string, string> = desk.conversation("sam", { store: memoryStore() });
 * try {
 *   console.log(await chat.send("Refund A-1042, please."));
 * } catch (e) {
 *   if (!(e instanceof Waiting)) throw e;
 *   await e.turn.approve({ by: "maria" }); // later, from any process with the same store
 * }
 * for (const turn of await chat.turns()) console.log(turn.id, turn.state);
 */
export interface Conversation<I, O> {
  readonly id: string;
  readonly store: Store;
  /** Sends a turn; throws `Waiting` (`turn-waiting`) when it stops for a person, `conversation-busy` while the head waits. */
  send(input: I, options?: SendOptions): Promise<O>;
  /** Sends a turn as a stream; the stream ends when the turn waits (saved) and nobody here answered. Takes no `key` (refused: `send` takes one). */
  stream(input: I, options?: CallOptions): TurnStream<O>;
  /** Every turn, oldest first, as handles that answer, resume or abandon it. */
  turns(): Promise<Turn<O>[]>;
  /** One turn by id. */
  turn(id: string): Promise<Turn<O>>;
}

/**
 * A send's options: a call's, and `key`, a request id chosen by the caller
 * (1 to 200 characters). A second send with a key the conversation already
 * holds starts nothing and answers as that turn does (its answer, or
 * `Waiting`): a client may retry a send after a network or store error.
 *
 * @example
 * const options: SendOptions = { key: "order-A-1042-refund" };
 * await chat.send("Refund A-1042", options); // sent again with this key: the same turn's answer, nothing new runs
 */
export interface SendOptions extends CallOptions {
  key?: string;
}

/** The request id a caller's key is kept as (apart from the ids delegates choose); `input-invalid` for a key that is none. */
function keyOf(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key.length === 0 || key.length > 200)
    throw new FunctaiError(
      "input-invalid",
      `send: key is a string of 1 to 200 characters, not ${typeof key === "string" ? `one of ${key.length}` : typeof key}`,
    );
  return `key:${key}`;
}

/**
 * Refuses a send's key given again with other inputs: a key names one
 * request, and answering the first request's answer to another question
 * would be a wrong answer nobody is told of. Compared as the turn keeps
 * them (JSON).
 */
function checkSameRequest(
  conversation: string,
  requestId: string,
  inputs: Record<string, unknown>,
  turn: { id: string; inputs: Record<string, unknown> },
): void {
  if (sameJson(JSON.parse(JSON.stringify(inputs)) as unknown, turn.inputs)) return;
  throw new FunctaiError(
    "input-invalid",
    `conversation ${conversation}: the key ${JSON.stringify(requestId.slice("key:".length))} was sent with other inputs (turn ${turn.id}: ${describeValue(turn.inputs, 120)}; now ${describeValue(inputs, 120)}): a key names one request, give a new request a new key (an input schema whose default or transform gives a new value each time makes each send another request). Nothing was sent.`,
  );
}

/**
 * A send's or a stream's options as given, checked as a plain call's are
 * (`settings-invalid`) before anything is read, written or paid: options
 * that are not an object were taken as none, and a `signal` that is not an
 * AbortSignal was a TypeError (from a stream, once its turn had started: it
 * ran on behind a caller told it failed).
 */
function callOptionsOf<T extends CallOptions>(conversation: string, options: T | null | undefined): T | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object")
    throw new FunctaiError(
      "settings-invalid",
      `conversation ${conversation}: a call's options must be an object such as { signal, key }, not ${describeValue(options, 80)}. Nothing was sent.`,
    );
  // a key that is no option (`aprove: "changes"`) was read by nothing: the turn ran its refunds without asking anyone
  const odd = unknownKeys(Object.keys(options), SEND_OPTION_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `conversation ${conversation}: ${namedKeys(odd, "is not an option", "are not options")}; a send takes ${SEND_OPTION_KEYS.join(", ")}. Nothing was sent.`,
    );
  const { signal } = options as { signal?: unknown };
  if (signal !== undefined && !isAbortSignal(signal))
    throw new FunctaiError(
      "settings-invalid",
      `conversation ${conversation}: signal must be an AbortSignal, not ${describeValue(signal, 80)}. Nothing was sent.`,
    );
  return options;
}

/** What a send's (or a stream's) options hold: any setting, its signal and key, and who made it. */
const SEND_OPTION_KEYS: readonly string[] = [...SETTING_KEYS, "signal", "key", "ctx", "caller"];

/** Sends a turn once per request id, under a parent of the caller's choosing (delegates). Internal. */
export const SEND_ONCE = Symbol("functai.sendOnce");

export interface Once {
  /** Names the request: a turn record carries it as `request_id`, so the same request finds its turn again. */
  requestId: string;
  /** Where the new turn goes (its earlier turns), instead of the head (a send's key: after the head). */
  parent?: string | null;
  /** The input was parsed by this function's input schema already (a delegate's, by the tool loop): not parsed again (a transform is applied once). */
  parsed?: boolean;
  /**
   * The calling turn's own check before a side effect (a delegate's caller): the turn sent here asks it too before
   * each of its effects, so it stops (interrupted, to go on when the caller is resumed) once its caller lost its
   * turn: abandoned, or taken by another host while this process was paused.
   */
  upstream?: (afterWait?: boolean) => void | Promise<void>;
}

export interface ConversationInternals<I, O> {
  [SEND_ONCE](input: I, once: Once, options?: CallOptions): Promise<O>;
}

/** A conversation's keyed stream (see `streamOnce`): beside its public methods, as `SEND_ONCE` is. Internal. */
export const STREAM_ONCE = Symbol("functai.streamOnce");

/**
 * What a conversation gives a keyed stream: a stream of its turn where there is one to show here, else the turn as it
 * ended or waits (in an object: a stream is a thenable, which a promise would settle with its answer).
 */
export type KeyedStream = { stream: TurnStream<unknown> } | { turn: Turn<unknown> };

export interface KeyedStreams {
  [STREAM_ONCE](input: unknown, key: string, options?: CallOptions): Promise<KeyedStream>;
}

/**
 * Sends a turn as a stream once per key, as `send(input, { key })` sends
 * one (`stream()` refuses a key: its turn is named before the store is
 * read). A key the conversation holds no turn for starts one, its key
 * recorded as `send` records it (two at once: the conditional append starts
 * one, the other goes on as below). A key that names a turn starts nothing:
 * one interrupted (or waiting with every approval answered) goes on here as
 * `turn.stream()` goes on with it; one running elsewhere is waited for; one
 * that ended, or waits for a person, is given as a handle (current). The
 * same key with other input is refused (`input-invalid`). `options.signal`
 * stops it only until the stream is given (in line behind the head, or
 * waiting for its turn elsewhere: nothing written); the stream is stopped
 * with its `abort()`, or let go of.
 */
export function streamOnce(chat: object, input: unknown, key: string, options?: CallOptions): Promise<KeyedStream> {
  if (!(STREAM_ONCE in chat)) throw new TypeError("not a conversation");
  return (chat as KeyedStreams)[STREAM_ONCE](input, key, options);
}

/** `begin` found the request's turn already sent. */
class AlreadySent extends Error {
  constructor(readonly turn: string) {
    super(`turn ${turn} was sent for this request already`);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * What a send of a request id whose turn ended without an answer throws: as
 * that turn did (its recorded code and message: a client retrying after a
 * network error sees what the first send threw), `turn-state` for a turn
 * abandoned, or ended with a code this version does not know.
 */
function endedError(conversation: string, turn: { id: string; state: string; error: unknown }, requestId: string): FunctaiError {
  const recorded = recordedError(turn.error);
  if (recorded) return recorded;
  const why = turn.error ? `: ${JSON.stringify(turn.error)}` : "";
  return new ConversationError("turn-state", `conversation ${conversation}: turn ${turn.id} (request ${requestId}) ${turn.state}${why}`);
}

/**
 * The refusal of a send while the head waits, saying what to do, naming the turn: answer what it asks; or, when
 * every approval it asked is answered but nobody went on with it (the process that took the answers stopped
 * first), resume it, settling first any tool that may have run (there is nothing left to answer).
 */
function busy(conversation: string, state: ConversationState): ConversationError {
  const head = state.head ?? "";
  const info = state.turns.get(head);
  const on = `chat.turn(${JSON.stringify(head)})`;
  if (info && info.waiting.length > 0)
    return new ConversationError(
      "conversation-busy",
      `conversation ${conversation}: turn ${head} waits for a person (${info.waiting.map((a) => a.path).join(", ")}); answer it first (${on}, then approve() or deny()), then send`,
    );
  const unfinished = info?.unfinished.map((t) => `${t.name} #${t.invocation}`) ?? [];
  const settle = unfinished.length > 0 ? ` with a result or a rerun for each tool that may have run (${unfinished.join(", ")})` : "";
  return new ConversationError(
    "conversation-busy",
    `conversation ${conversation}: turn ${head} still waits, though every approval it asked for is answered (nobody went on with it after the answers): resume it first (${on}, then resume()${settle}), then send`,
  );
}

/** What a conversation is opened from: the function's definition and its settings layers. */
export interface ConversationOf {
  readonly definition: Definition;
  readonly layers: readonly Settings[];
}

/** A turn about to be sent: wait behind the running head, or append these records (and run it with this host). */
type Begun = { waits: true } | { waits: false; host: ConversationHost };

/** A definition's program version (its kind, name and interface, hashed), made once per definition: a definition never changes. */
const versions = new WeakMap<Definition, string>();
function programVersion(def: Definition): string {
  let version = versions.get(def);
  if (version === undefined) versions.set(def, (version = `fa:${digest(JSON.stringify([def.kind, def.name, def.describe()]))}`));
  return version;
}

/** Opens a conversation of a function (checks the id; nothing is read until a call). */
export function openConversation<S extends z.ZodRawShape, O>(
  def: Definition,
  layers: readonly Settings[],
  id: string,
  options: ConversationOptions,
): Conversation<CallInput<S>, O> & ConversationInternals<CallInput<S>, O> & KeyedStreams {
  if (!isConversationId(id))
    throw new ConversationError(
      "conversation-id",
      `conversation id ${JSON.stringify(id).slice(0, 60)} must be 1–200 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  const own = checkSettings(pickSettings(options));
  // the withSettings blocks open as the handle is opened are its own, as their store is: a handle opened in a block
  // and sent to after it went on under configure's settings alone (a refund the block said to ask about ran unasked,
  // into the block's store). Blocks open at a send are nearer; configure's settings are read at each send, farther
  const opened = blockSettings();
  const settingsNow = (): Settings => mergeSettings(ambientSettings(opened), def.settings, ...layers, own);
  const store = resolveStore(options.store ?? settingsNow().store);
  const clock = options.clock ?? systemClock;
  // a clock that is not one would fail as a TypeError deep inside the first send (or a lease's renewal, later)
  if (typeof clock !== "object" || clock === null || !(["now", "after", "every"] as const).every((f) => typeof clock[f] === "function"))
    throw new FunctaiError(
      "settings-invalid",
      `conversation ${id}: clock must be a Clock (now, after and every; fakeClock() from functai/testing in tests), not ${describeValue(clock, 40)}`,
    );
  /**
   * A `now()` that gives no milliseconds (a Date, a string, NaN) is only
   * found out when called: refused at the handle's first use, before
   * anything is read or written (it would be read as some other time, or
   * make a lease's end by concatenating strings). Checked once per handle,
   * not at each record: a clock that gave milliseconds once keeps giving them.
   */
  let clockChecked = false;
  const checkClock = (): void => {
    if (clockChecked) return;
    let now: unknown;
    try {
      now = clock.now();
    } catch (e) {
      throw new FunctaiError("settings-invalid", `conversation ${id}: clock.now() threw: ${describeError(e)}. Nothing was read or written.`);
    }
    if (typeof now !== "number" || !(Math.abs(now) <= 8.64e15)) {
      const given = now instanceof Date ? "a Date" : typeof now === "number" ? String(now) : `${typeof now} ${describeValue(now, 40)}`;
      throw new FunctaiError(
        "settings-invalid",
        `conversation ${id}: clock.now() must give milliseconds since the epoch (a number, as Date.now() does), not ${given}. Nothing was read or written.`,
      );
    }
    clockChecked = true;
  };
  // (its failures marked as this conversation's: a turn tells its journal failing from its program's own error by where it came from)
  const log = new ConversationLog(store, id, clock, undefined, true); // keeps its open turns' records: a turn answered here goes on from them
  const ctx: ConversationContext = { log, def, settings: settingsNow };
  /** A call's settings (its options nearest), refused before anything is written when its turn could not run (no model). */
  const callSettings = (callOptions: object | undefined): Settings => {
    const settings = mergeSettings(settingsNow(), checkSettings(pickSettings(callOptions)));
    checkModel(def, settings);
    return settings;
  };
  const version = programVersion(def);

  /**
   * A program's inputs as a resumed run will have them: its turn keeps them
   * as JSON, and a resumed body gets them parsed again from that. Inputs the
   * schema cannot read back from JSON (a `z.date()`: its JSON is a string)
   * would reach a resumed body as something else than the first run had:
   * refused before anything is written or paid (`z.coerce.date()` reads its
   * JSON back). Inputs it reads back are given to the first run as a resume
   * gives them. An AI function only lays its inputs out as JSON: any will do.
   */
  function resumable(inputs: Record<string, unknown>): Record<string, unknown> {
    if (def.kind !== "program") return inputs;
    const kept = JSON.parse(JSON.stringify(inputs)) as Record<string, unknown>;
    const again = readWith(def.inputSchema, kept);
    if ("thrown" in again) return inputs; // (a refinement that throws: resumed as kept, as keptInputs does)
    // the body is given what a resume gives it (keptInputs: the turn's inputs as it keeps them, read back), so its
    // first run and a resumed one see the same: through z.any(), NaN, Infinity and -0 were given as they are here and
    // as null and 0 there, a Date as a Date here and as its text there
    if (again.success) return keptInputs(def, kept);
    throw new FunctaiError(
      "input-invalid",
      `${def.name}: its inputs cannot be kept for a resume (${issuesText(again.error, "input")} once kept as JSON); give the program an input schema that reads its JSON back (z.coerce.date() for a date). Nothing was written.`,
    );
  }

  /** The records of a new turn under `parent` (a program record first when this version is new). */
  function firstRecords(
    state: ConversationState,
    turn: string,
    parent: string | null,
    inputs: Record<string, unknown>,
    settings: Settings,
    host: ConversationHost,
    once?: Once,
    caller?: TurnCaller,
  ): object[] {
    const now = clock.now();
    const records: object[] = [];
    if (!state.programs.has(version))
      records.push(makeRecord("program", { version, name: def.name, program_kind: def.kind, interface: def.describe() }, now));
    const fields: RecordFields<"turn"> = { turn, parent, program: version, inputs };
    if (once) fields.request_id = once.requestId;
    if (caller) fields.caller = caller;
    // the rule goes with the turn: whoever resumes it, a person is still asked (a function cannot be kept: a person answers instead)
    if (settings.approve !== undefined && settings.approve !== null)
      (fields as Record<string, unknown>).approve = typeof settings.approve === "function" ? "function" : settings.approve;
    records.push(makeRecord("turn", fields, now), host.lease.record(1));
    return records;
  }

  /**
   * Appends the new turn, conditionally; waits behind a running head. A
   * `stopped` signal (the caller's, or a stream left) that aborts before the
   * turn is written stops it there: nothing is written (`turn-aborted`).
   */
  async function begin(
    inputs: Record<string, unknown>,
    settings: Settings,
    turn = newTurnId(clock.now()),
    once?: Once,
    caller?: TurnCaller,
    stopped?: AbortSignal,
  ): Promise<ConversationHost> {
    if (stopped?.aborted) throw abortError(stopped); // before anything is read, written or paid
    // the new turn's lock, asked for now: it overlaps the read below (a turn no one knows of yet blocks no one)
    const early = store.liveness ? new EarlyLock(store.liveness, id, turn) : undefined;
    const aborted = stopped ? whenAborted(stopped) : null;
    try {
      return await beginWith(inputs, settings, turn, early, once, caller, stopped, aborted?.promise);
    } finally {
      early?.drop(); // (a lock no try took: a refused or failed send)
      aborted?.dispose();
    }
  }

  async function beginWith(
    inputs: Record<string, unknown>,
    settings: Settings,
    turn: string,
    early: EarlyLock | undefined,
    once: Once | undefined,
    caller: TurnCaller | undefined,
    stopped: AbortSignal | undefined,
    aborted: Promise<void> | undefined,
  ): Promise<ConversationHost> {
    for (;;) {
      let host: ConversationHost | null = null;
      let begun: { value: Begun; length: number };
      try {
        begun = await log.appendIf<Begun>(
          async (view) => {
            host?.onInterrupt(); // a lost race: the lock of the last try is let go
            if (stopped?.aborted) throw abortError(stopped); // stopped while it waited in line: never written
            const state = await view.state();
            if (once) {
              const existing = log.requested(once.requestId);
              if (existing) throw new AlreadySent(existing);
            }
            const next = once?.parent !== undefined ? { ...state.next, ...("parent" in state.next ? { parent: once.parent } : {}) } : state.next;
            if ("refuses" in next) throw busy(id, state);
            if ("waits" in next) return { append: [], value: { waits: true } };
            host = new ConversationHost({
              def,
              settings,
              log,
              turn,
              inputs,
              history: historyOf(state, next.parent),
              attempt: 1,
              claimed: true,
              length: 0,
              ...(once?.upstream && { upstream: once.upstream }),
            });
            await host.lease.holdLock(early); // the lock before the lease: a lease of a live tab never stands without it
            return { append: firstRecords(state, turn, next.parent, inputs, settings, host, once, caller), value: { waits: false, host } };
          },
          { maxTries: 50 },
        );
      } catch (e) {
        (host as ConversationHost | null)?.onInterrupt();
        throw e;
      }
      if (!begun.value.waits) {
        begun.value.host.wrote(begun.length);
        return begun.value.host;
      }
      // in line behind the head: until the conversation changes, or the turn is stopped
      const waited = store.wait ? store.wait(id, log.length, 1000) : sleep(100);
      await (aborted ? Promise.race([waited, aborted]) : waited);
    }
  }

  const turnHandle = async (turnId: string, within: ConversationContext = ctx): Promise<Turn<O>> => {
    checkClock();
    const state = await log.read();
    const info = state.turns.get(turnId);
    if (!info) throw new ConversationError("turn-state", `conversation ${id} has no turn ${turnId}`);
    return new Turn<O>(within, state, info);
  };

  /** The `Waiting` a turn just sent here rejects with (read afresh). */
  const waitingOf = async (turn: string): Promise<Error> => new Waiting(await turnHandle(turn));

  /** Runs a turn just sent, here, to its answer (or `Waiting`); `signal` stops it (a call option). */
  const run = (host: ConversationHost, signal?: AbortSignal): Promise<O> => {
    const session = startSent(host, false);
    const unlink = linkSignal(session, signal, { keepWaiting: true });
    const answered = resultOrWait(session, log, () => waitingOf(host.turn)) as Promise<O>;
    answered.then(unlink, unlink);
    return answered;
  };

  /**
   * A keyed call's loop, `sendOnce`'s and `streamKeyed`'s: `start` begins a turn for its key, or finds the turn the key
   * names already sent; `found` says what the call does with that turn (its answer, try `start` again at once, or
   * wait). A turn running elsewhere (or whose lease has not run out yet) is waited for, until the conversation
   * changes or `signal` stops the call.
   */
  async function keyed<R>(
    once: Once,
    signal: AbortSignal | undefined,
    start: () => Promise<R>,
    found: (turn: string) => Promise<{ answer: R } | "again" | "wait">,
  ): Promise<R> {
    for (let tries = 0; tries < 600; tries++) {
      let turn: string;
      try {
        return await start();
      } catch (e) {
        if (!(e instanceof AlreadySent)) throw e;
        turn = e.turn;
      }
      const next = await found(turn);
      if (next === "again") continue;
      if (next !== "wait") return next.answer;
      if (signal?.aborted) throw abortError(signal);
      const waited: Promise<unknown> = store.wait ? store.wait(id, await lengthOf(store, id), 200) : sleep(100);
      await (signal ? untilAborted(waited, signal, abortError) : waited);
    }
    throw new ConversationError("turn-state", `conversation ${id}: request ${once.requestId} still running elsewhere`);
  }

  /** A turn sent once per request id (a delegate's call): sent again, it goes on with the turn it sent before. */
  async function sendOnce(input: CallInput<S>, once: Once, callOptions?: CallOptions): Promise<O> {
    checkClock();
    const inputs = resumable(once.parsed ? (input as Record<string, unknown>) : parseInput(def, input));
    const settings = callSettings(callOptions);
    const signal = callOptions?.signal;
    const start = async (): Promise<O> => run(await begin(inputs, settings, newTurnId(clock.now()), once, callOptions?.caller, signal), signal);
    return keyed(once, signal, start, async (turnId) => {
      const turn = await turnHandle(turnId);
      if (once.parent === undefined) checkSameRequest(id, once.requestId, inputs, turn); // a send's key (a delegate's id is made from its call)
      if (turn.state === "done") return { answer: turn.value as O };
      // a send's key: as that turn answers (one whose approvals were all answered waits for nobody: it goes on below)
      if (turn.state === "waiting" && turn.waiting.length > 0 && once.parent === undefined) throw new Waiting(turn);
      if (turn.state === "running") return "wait";
      if (turn.state !== "waiting" && turn.state !== "interrupted") throw endedError(id, turn, once.requestId);
      // it goes on as this call: its settings (a model given in its options), its signal, its caller's check (a delegate's)
      const handle = await turnHandle(turn.id, { ...ctx, settings: () => ({ ...settings }), signal, upstream: once.upstream });
      try {
        return { answer: await handle.resume() };
      } catch (e) {
        // another call of this request (a second retry at once) claimed it first: it goes on there, and this one answers
        // as it does (read again: its answer, its wait), never turn-claimed for a request being answered
        if (!isFunctaiError(e, "turn-claimed")) throw e;
        return "again";
      }
    });
  }

  /**
   * A turn sent once per key, as a stream (see `streamOnce`): a new turn is begun (its key recorded
   * as `sendOnce` records it) before its stream is made, so a key another call recorded first is found, not sent again.
   */
  async function streamKeyed(input: unknown, key: string, given?: CallOptions): Promise<KeyedStream> {
    const callOptions = callOptionsOf(id, given);
    checkClock();
    const once: Once = { requestId: keyOf(key) as string };
    const inputs = resumable(parseInput(def, input));
    const settings = callSettings(callOptions);
    const signal = callOptions?.signal;
    const start = async (): Promise<KeyedStream> => {
      const host = await begin(inputs, settings, newTurnId(clock.now()), once, callOptions?.caller, signal);
      const session = startTurn(host, { streaming: true });
      const waiting = (): Promise<Error> => waitingOf(host.turn);
      // (its records are in the store: its events are shown at once)
      return { stream: streamSent<unknown>(session, log, waiting, async () => undefined, Promise.resolve()) };
    };
    return keyed(once, signal, start, async (turnId) => {
      // gone on with as this call: its settings (a model given in its options)
      const turn = await turnHandle(turnId, { ...ctx, settings: () => ({ ...settings }) });
      checkSameRequest(id, once.requestId, inputs, turn);
      if (turn.state === "interrupted" || (turn.state === "waiting" && turn.waiting.length === 0))
        return { answer: { stream: turn.stream() as TurnStream<unknown> } };
      if (turn.state !== "running") return { answer: { turn: turn as Turn<unknown> } };
      return "wait";
    });
  }

  return {
    id,
    store,
    [SEND_ONCE]: sendOnce,
    [STREAM_ONCE]: streamKeyed,
    async send(input, given) {
      const callOptions = callOptionsOf(id, given);
      checkClock();
      const requestId = keyOf(callOptions?.key);
      if (requestId !== undefined) return sendOnce(input as CallInput<S>, { requestId }, callOptions);
      const inputs = resumable(parseInput(def, input));
      const settings = callSettings(callOptions);
      return run(await begin(inputs, settings, undefined, undefined, callOptions?.caller, callOptions?.signal), callOptions?.signal);
    },
    stream(input, given) {
      const callOptions = callOptionsOf(id, given);
      // a stream names its turn (s.turn, its actor, its events) as it returns, before the store is read: it cannot
      // turn out to be the turn a key already names. Ignored, a key retried here would start a second turn and pay again
      if ((callOptions as SendOptions | undefined)?.key !== undefined)
        throw new FunctaiError(
          "input-invalid",
          `conversation ${id}: stream takes no key (a stream's turn is named before the store is read, so it cannot be the turn a key already names); send(input, { key }) sends a request once, and turn.stream() goes on with a waiting or interrupted turn as a stream. Nothing was sent.`,
        );
      checkClock();
      const inputs = resumable(parseInput(def, input));
      const settings = callSettings(callOptions);
      const turn = newTurnId(clock.now());
      // stopped before its turn is written (left, or the caller's signal, while it waits in line): nothing is written
      const left = new AbortController();
      // the stream object exists at once; its turn must be in the store before its runner starts: the runner waits for the host
      const begun = begin(inputs, settings, turn, undefined, callOptions?.caller, left.signal);
      const session = startTurn(new DeferredHost(begun, turn, def.name, clock), { streaming: true });
      const watching = session.actor.subscribe((snapshot) => {
        if (snapshot.status === "active") return;
        if (snapshot.value === "stopped") left.abort(session.error ?? new FunctaiError("turn-aborted", "the turn was stopped"));
        watching.unsubscribe();
      });
      // the signal is let go when the stream settles, as a send's is: a turn that waits, saved, never ends its actor
      let unlink = (): void => undefined;
      const stream = streamSent<O>(
        session,
        log,
        () => waitingOf(turn),
        async () => unlink(),
        begun,
      );
      unlink = linkSignal(session, callOptions?.signal, { keepWaiting: true }); // (let go when the turn ends, too)
      return stream;
    },
    async turns() {
      checkClock();
      const state = await log.read();
      return [...state.turns.values()].map((info) => new Turn<O>(ctx, state, info));
    },
    turn: turnHandle,
  };
}

/** A stream of a turn just sent (its snapshots kept); `begun`: its first records appended. */
function streamSent<O>(
  session: TurnSession,
  log: ConversationLog,
  waiting: () => Promise<Error>,
  settled: () => Promise<void>,
  begun: Promise<unknown>,
): TurnStream<O> {
  keepSnapshots(session);
  const stream = new ConversationStream<O>(session, log, waiting, settled, begun);
  session.actor.start();
  return stream;
}

/** A turn's host while its first records are appended: every call waits for the real one. */
class DeferredHost {
  readonly mode = "conversation" as const;
  #host: ConversationHost | null = null;
  constructor(
    readonly ready: Promise<ConversationHost>,
    readonly turn: string,
    readonly name: string,
    /** The conversation's: the turn's events take their time from it before its host is ready, and after. */
    readonly clock: Clock,
  ) {
    // (known as soon as its records are written: a let-go from then on is the real host's, see `letGo`)
    ready.then(
      (host) => void (this.#host ??= host),
      () => undefined,
    );
  }
  /**
   * Lets go of the turn here as the process's exit would (a server that closes: see `letGo` in turn/stream.ts): once
   * its records are written, the real host's, so it reads interrupted and is resumed elsewhere. Absent before (a turn
   * not written yet, or waiting in line, has nothing to resume: it is stopped instead, and never written).
   */
  get letGo(): ((lost: LeaseLost) => Promise<void>) | undefined {
    const host = this.#host;
    return host ? (lost) => host.letGo(lost) : undefined;
  }
  async #get(): Promise<ConversationHost> {
    this.#host ??= await this.ready;
    return this.#host;
  }
  async journal() {
    return (await this.#get()).journal();
  }
  async execute(runtime: Parameters<ConversationHost["execute"]>[0]) {
    return (await this.#get()).execute(runtime);
  }
  async beforeEffect() {
    return (await this.#get()).beforeEffect();
  }
  async onWait(...args: Parameters<ConversationHost["onWait"]>) {
    return (await this.#get()).onWait(...args);
  }
  async onEnd(...args: Parameters<ConversationHost["onEnd"]>) {
    return (await this.#get()).onEnd(...args);
  }
  watch(abort: Parameters<ConversationHost["watch"]>[0]) {
    void this.ready.then(
      (host) => host.watch(abort),
      () => undefined,
    );
  }
  onInterrupt(error?: LeaseLost) {
    this.#host?.onInterrupt(error);
  }
  async note(snapshot: unknown) {
    return (await this.#get()).note(snapshot);
  }
  get conversation() {
    return this.#host?.conversation;
  }
}
