import { platform } from "#runtime";
import type { z } from "zod";
import type { Callable, CallInput, CallOptions } from "../core/callable.js";
import { parseInput } from "../core/definition.js";
import { ConversationError, FunctaiError, isFunctaiError } from "../errors.js";
import { digest } from "../lm/fingerprint.js";
import { newTurnId } from "../ids.js";
import { makeRecord, type RecordFields } from "../records/make.js";
import type { ConversationState } from "../records/read-conversation.js";
import { ambientSettings, checkSettings, mergeSettings, pickSettings, type Settings } from "../settings.js";
import { isConversationId, type Store } from "../store/types.js";
import { startTurn } from "../turn/session.js";
import type { TurnStream } from "../turn/stream.js";
import { ConversationCore } from "./core.js";
import { ConversationHost } from "./host.js";
import { ConversationStream } from "./stream.js";
import { Turn } from "./turn.js";

export interface ConversationOptions extends Settings {
  /** Where turns are kept: a Store, or a string (a folder in Node, an IndexedDB database in browsers). */
  store?: Store | string;
}

/** A conversation: turns kept in a store; a turn that waits for a person is saved and answered from anywhere. */
export interface Conversation<S extends z.ZodRawShape, O> {
  readonly id: string;
  readonly store: Store;
  /** Sends a turn; throws `Waiting` (`turn-waiting`) when it stops for a person, `conversation-busy` while the head waits. */
  send(input: CallInput<S>, options?: CallOptions): Promise<O>;
  /** Sends a turn as a stream; the stream ends when the turn waits (saved) and nobody here answered. */
  stream(input: CallInput<S>, options?: CallOptions): TurnStream<O>;
  /** Every turn, oldest first, as handles that answer, resume or abandon it. */
  turns(): Promise<Turn[]>;
  /** One turn by id. */
  turn(id: string): Promise<Turn>;
}

/** Sends a turn once per request id, under a parent of the caller's choosing (delegates). Internal. */
export const SEND_ONCE = Symbol("functai.sendOnce");

export interface Once {
  /** Names the request: a turn record carries it as `request_id`, so the same request finds its turn again. */
  requestId: string;
  /** Where the new turn goes (its earlier turns), instead of the head. */
  parent: string | null;
}

export interface ConversationInternals<S extends z.ZodRawShape, O> {
  [SEND_ONCE](input: CallInput<S>, once: Once, options?: CallOptions): Promise<O>;
}

/** `begin` found the request's turn already sent. */
class AlreadySent extends Error {
  constructor(readonly turn: string) {
    super(`turn ${turn} was sent for this request already`);
  }
}

const storeCache = new Map<string, Store>();

export function resolveStore(store: Store | string | undefined): Store {
  if (store === undefined) throw new FunctaiError("settings-invalid", "a conversation needs a store: { store: \"chats/\" } or a Store");
  if (typeof store !== "string") return store;
  let resolved = storeCache.get(store);
  if (!resolved) storeCache.set(store, (resolved = platform.defaultStore(store)));
  return resolved;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Opens a conversation of `fn` (checks the id; nothing is read until a call). */
export function openConversation<S extends z.ZodRawShape, O>(fn: Callable<S, O>, id: string, options: ConversationOptions): Conversation<S, O> & ConversationInternals<S, O> {
  if (!isConversationId(id))
    throw new ConversationError("conversation-id", `conversation id ${JSON.stringify(id).slice(0, 60)} must be 1–200 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit`);
  const def = fn.definition;
  const own = checkSettings(pickSettings(options));
  const settingsNow = (): Settings => mergeSettings(ambientSettings(), def.settings, ...fn.layers, own);
  const store = resolveStore(options.store ?? settingsNow().store);
  const core = new ConversationCore(id, def, store, settingsNow);
  const version = `fa:${digest(JSON.stringify([def.kind, def.name, def.describe()]))}`;

  /** Appends the new turn (program record first when this version is new), conditionally; waits behind a running head. */
  async function begin(inputs: Record<string, unknown>, settings: Settings, turn = newTurnId(), once?: Once): Promise<{ host: ConversationHost; state: ConversationState }> {
    for (;;) {
      const state = core.remember(await core.read());
      if (once) {
        const existing = core.requested(once.requestId);
        if (existing) throw new AlreadySent(existing);
      }
      const next = once ? { ...state.next, ...("parent" in state.next ? { parent: once.parent } : {}) } : state.next;
      if ("refuses" in next) {
        const head = state.head ? state.turns.get(state.head) : undefined;
        throw new ConversationError("conversation-busy", `conversation ${id}: turn ${state.head} waits for a person${head?.waiting.length ? ` (${head.waiting.map((a) => a.path).join(", ")})` : ""}; answer it first`);
      }
      if ("waits" in next) {
        if (store.wait) await store.wait(id, state.length, 1000);
        else await sleep(100);
        continue;
      }
      const host = new ConversationHost({
        def, settings, store, conversation: id, turn, inputs, history: core.history(next.parent, state),
        attempt: 1, claimed: true, length: 0,
      });
      const now = Date.now();
      const records: object[] = [];
      if (!state.programs.has(version))
        records.push(makeRecord("program", { version, name: def.name, program_kind: def.kind, interface: def.describe() }, now));
      const fields: RecordFields<"turn"> = { turn, parent: next.parent, program: version, inputs };
      if (once) fields.request_id = once.requestId;
      // the rule goes with the turn: whoever resumes it, a person is still asked (a function cannot be kept: a person answers instead)
      if (settings.approve !== undefined && settings.approve !== null)
        (fields as Record<string, unknown>).approve = typeof settings.approve === "function" ? "function" : settings.approve;
      records.push(makeRecord("turn", fields, now));
      records.push(host.leaseRecord(1));
      await host.holdLock(); // the lock before the lease: a lease of a live tab never stands without it
      try {
        host.wrote(await store.append(id, records, { expect: state.length, durable: true }));
        return { host, state };
      } catch (e) {
        host.onInterrupt();
        if (!isFunctaiError(e, "store-conflict")) throw e;
      }
    }
  }

  const turnHandle = async (turnId: string): Promise<Turn> => {
    const state = core.remember(await core.read());
    const info = state.turns.get(turnId);
    if (!info) throw new ConversationError("turn-state", `conversation ${id} has no turn ${turnId}`);
    return new Turn(core, info);
  };

  /** Runs a turn just sent, here, to its answer (or `Waiting`). */
  const run = (host: ConversationHost): Promise<O> => {
    const session = startTurn(host, { streaming: false });
    core.keepSnapshots(session);
    session.actor.start();
    return core.settle(session, new Turn(core, placeholder(host.turn)), session.actor) as Promise<O>;
  };

  /** A turn sent once per request id (a delegate's call): sent again, it goes on with the turn it sent before. */
  async function sendOnce(input: CallInput<S>, once: Once, callOptions?: CallOptions): Promise<O> {
    const inputs = parseInput(def, input);
    const settings = mergeSettings(settingsNow(), checkSettings(pickSettings(callOptions)));
    for (let tries = 0; tries < 600; tries++) {
      let turn: Turn;
      try {
        const { host } = await begin(inputs, settings, newTurnId(), once);
        return await run(host);
      } catch (e) {
        if (!(e instanceof AlreadySent)) throw e;
        turn = await turnHandle(e.turn);
      }
      if (turn.state === "done") return turn.value as O;
      if (turn.state === "waiting" || turn.state === "interrupted") return (await turn.resume()) as O;
      if (turn.state !== "running") throw new ConversationError("turn-state", `conversation ${id}: turn ${turn.id} (request ${once.requestId}) ${turn.state}${turn.error ? `: ${JSON.stringify(turn.error)}` : ""}`);
      // another run of it goes on (or its lease has not run out yet): wait for it
      if (store.wait) await store.wait(id, (await store.read(id)).length, 200);
      else await sleep(100);
    }
    throw new ConversationError("turn-state", `conversation ${id}: request ${once.requestId} still running elsewhere`);
  }

  return {
    id,
    store,
    [SEND_ONCE]: sendOnce,
    async send(input, callOptions) {
      const inputs = parseInput(def, input);
      const settings = mergeSettings(settingsNow(), checkSettings(pickSettings(callOptions)));
      const { host } = await begin(inputs, settings);
      return run(host);
    },
    stream(input, callOptions) {
      const inputs = parseInput(def, input);
      const settings = mergeSettings(settingsNow(), checkSettings(pickSettings(callOptions)));
      const turn = newTurnId();
      return deferredStream<O>(begin(inputs, settings, turn).then(({ host }) => host), core, turn, def.name);
    },
    async turns() {
      const state = core.remember(await core.read());
      return [...state.turns.values()].map((info) => new Turn(core, info));
    },
    turn: turnHandle,
  };
}

/** A TurnInfo for a turn just sent (refreshed from the store before anyone sees it). */
function placeholder(turn: string) {
  return {
    id: turn, state: "running" as const, parent: null, program: "", inputs: {}, approve: null, seq: 0, attempt: 1, holder: null, leaseUntil: null,
    waiting: [], answers: [], unfinished: [], tools: new Map(), ended: null, stopped: false, snapshot: null,
  };
}

/** A stream whose turn is appended first: the stream object exists at once, its events come once the turn is sent. */
function deferredStream<O>(host: Promise<ConversationHost>, core: ConversationCore, turnId: string, name: string): TurnStream<O> {
  // the turn must exist in the store before its runner starts: the runner waits for the host
  const proxy = new DeferredHost(host, turnId, name);
  const session = startTurn(proxy, { streaming: true });
  core.keepSnapshots(session);
  const turn = new Turn(core, placeholder(proxy.turn));
  const stream = new ConversationStream<O>(session, core, turn);
  session.actor.start();
  return stream;
}

class DeferredHost {
  readonly mode = "conversation" as const;
  #host: ConversationHost | null = null;
  constructor(readonly ready: Promise<ConversationHost>, readonly turn: string, readonly name: string) {
    ready.catch(() => undefined);
  }
  async #get(): Promise<ConversationHost> {
    this.#host ??= await this.ready;
    return this.#host;
  }
  async journal() {
    const host = await this.#get();
    return host.journal();
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
  onInterrupt() {
    this.#host?.onInterrupt();
  }
  async note(snapshot: unknown) {
    return (await this.#get()).note(snapshot);
  }
  get conversation() {
    return this.#host?.conversation;
  }
}
