/**
 * The turn actor as the main entry shows it: the members a user needs,
 * typed structurally. At run time it is the XState actor itself; its own
 * types (xstate's, which do not compile under `exactOptionalPropertyTypes`
 * with `skipLibCheck: false`) stay in `functai/machine`.
 */
import { FunctaiError } from "../errors.js";
import type { TurnCommand, TurnContext } from "./context.js";
import type { MachineState, TurnEvent } from "./events.js";

/**
 * A turn actor's state: the states `state` events name, and `boot`, the
 * instant before a rehydrated actor moves to where it stood.
 *
 * @example
 * const state: TurnStateValue = stream.actor.getSnapshot().value;
 * if (state === "awaitingApproval") showApprovals(stream.pending);
 */
export type TurnStateValue = "boot" | MachineState;

/**
 * What `actor.getSnapshot()` gives: the state, whether the actor still
 * runs (`status`: `active` until a final state), and its context.
 *
 * @example
 * const { value, status, context }: TurnSnapshot = stream.actor.getSnapshot();
 * console.log(value, status, context.pending.length);
 */
export interface TurnSnapshot {
  /** `running`, `awaitingApproval`, `interrupted`, `done`, `failed`, `abandoned`, `stopped` (or `boot`). */
  readonly value: TurnStateValue;
  /** `active` while the turn can still change; `done` once it reached a final state. */
  readonly status: "active" | "done" | "error" | "stopped";
  readonly context: TurnContext;
}

/**
 * A turn actor's persisted snapshot (`actor.getPersistedSnapshot()`): plain
 * JSON, kept with the turn's records. Its type is the shape of xstate's
 * `Snapshot<unknown>`, so `createActor(turnMachine, { snapshot })` takes it as is.
 *
 * @example
 * import { createActor } from "xstate";
 * import { turnMachine } from "functai/machine";
 * const snapshot: TurnPersistedSnapshot = stream.actor.getPersistedSnapshot();
 * const again = createActor(turnMachine.provide({ actors: { runner } }), { snapshot });
 */
export type TurnPersistedSnapshot =
  | { status: "active"; output: undefined; error: undefined }
  | { status: "done"; output: unknown; error: undefined }
  | { status: "error"; output: undefined; error: unknown }
  | { status: "stopped"; output: undefined; error: undefined };

/**
 * A subscription to a turn actor: `unsubscribe()` ends it.
 *
 * @example
 * const sub: TurnSubscription = stream.actor.subscribe((s) => console.log(s.value));
 * sub.unsubscribe();
 */
export interface TurnSubscription {
  /** Stops the callbacks. */
  unsubscribe(): void;
}

/**
 * Callbacks for a turn actor's snapshots, its failure and its end.
 *
 * @example
 * const observer: TurnObserver = { next: (s) => console.log(s.value), complete: () => console.log("ended") };
 * stream.actor.subscribe(observer);
 */
export interface TurnObserver {
  /** Each new snapshot. */
  next?(snapshot: TurnSnapshot): void;
  /** The actor failed. */
  error?(error: unknown): void;
  /** The actor ended (a final state, or stopped). */
  complete?(): void;
}

/**
 * A turn's actor (`TurnStream.actor`): every turn is an XState v5 actor of
 * `turnMachine` (`functai/machine`). Its persisted snapshot is plain JSON,
 * so another process can rehydrate it with
 * `createActor(turnMachine, { snapshot })`.
 *
 * @example
 * const s = desk.using({ approve: "changes" }).stream("Refund A-1042, please.");
 * s.actor.subscribe((snapshot) => console.log(snapshot.value));
 * s.actor.on("*", (event) => console.log(event.seq, event.type));
 * const saved = JSON.stringify(s.actor.getPersistedSnapshot());
 */
export interface TurnActor {
  /** The current snapshot: state, status and context. */
  getSnapshot(): TurnSnapshot;
  /** The snapshot to keep (JSON): `createActor(turnMachine, { snapshot })` rehydrates the actor from it. */
  getPersistedSnapshot(): TurnPersistedSnapshot;
  /** Sends an answer or a command (`APPROVE`, `DENY`, `RESUME`, `ABANDON`, `STOP`). */
  send(command: TurnCommand): void;
  /** Calls back with each new snapshot (and on failure and end). */
  subscribe(observer: TurnObserver): TurnSubscription;
  /** Calls back with each new snapshot. */
  subscribe(next: (snapshot: TurnSnapshot) => void): TurnSubscription;
  /** Calls back with every event the turn emits (what its stream yields). */
  on(type: "*", handler: (event: TurnEvent) => void): TurnSubscription;
}

/**
 * Resolves with the first snapshot, the current one included, that `test`
 * accepts; rejects when the actor fails or ends before one does.
 */
export function snapshotWhere(actor: TurnActor, test: (snapshot: TurnSnapshot) => boolean): Promise<TurnSnapshot> {
  return new Promise((resolve, reject) => {
    const now = actor.getSnapshot();
    if (test(now)) return resolve(now);
    let settled = false;
    const sub = actor.subscribe({
      next(snapshot) {
        if (settled || !test(snapshot)) return;
        settled = true;
        sub.unsubscribe();
        resolve(snapshot);
      },
      error(error) {
        settled = true;
        reject(error);
      },
      complete() {
        if (!settled) reject(new FunctaiError("turn-state", "the turn actor ended before the state waited for"));
      },
    });
  });
}
