import { abortError } from "./runtime.js";

/**
 * How long a stopped turn waits for a tool that ignores its `ctx.signal` (a hung socket, a forgotten promise), or a
 * model that ignores its request's signal, before the stop settles without it: the same grace `server.close()` gives. A tool that honours its signal ends the stop
 * at once; this bounds only the one that does not.
 */
export const STOP_GRACE_MS = 5_000;

/**
 * The races pending on each signal, told of its abort by one listener for them all: put on the signal by its first
 * race and kept until the abort (a turn's signal lives as long as its turn), never one per race. A race leaves its set
 * as it settles. So a step's model call, tool run and hooks add no listener of their own, and twelve tool calls at
 * once are not twelve listeners (past 10, Node warns of a leak).
 */
const pendingOn = new WeakMap<AbortSignal, Set<Pending>>();

/** The set of races pending on `signal` (not aborted), its one listener put on with the first race. */
function racesOn(signal: AbortSignal): Set<Pending> {
  let races = pendingOn.get(signal);
  if (races === undefined) {
    const set = new Set<Pending>();
    pendingOn.set(signal, (races = set));
    signal.addEventListener(
      "abort",
      () => {
        pendingOn.delete(signal);
        for (const pending of set) pending.giveUp();
      },
      { once: true },
    );
  }
  return races;
}

/** One race while its run has not settled (an object with methods: no closures of its own at every call). */
class Pending {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  constructor(
    readonly bound: StopBound,
    readonly signal: AbortSignal,
    readonly reject: (e: unknown) => void,
    /** Its signal's pending races; undefined when the signal had aborted before the race began. */
    readonly races: Set<Pending> | undefined,
  ) {}

  /** The stop came: the run has STOP_GRACE_MS left. */
  giveUp(): void {
    if (this.timer !== undefined) return;
    // (a timer that keeps the process alive: a script awaiting the stop is told it, not left with a pending promise)
    this.timer = setTimeout(() => {
      this.bound.gaveUp = true;
      this.reject(abortError(this.signal));
    }, STOP_GRACE_MS);
  }

  /** The run settled: it leaves its signal's pending races, and a grace begun for it ends. */
  settled(): void {
    this.races?.delete(this);
    if (this.timer !== undefined) clearTimeout(this.timer);
  }
}

/**
 * Races a tool's run (or a model call) against a stop: once `signal` aborts, the run has STOP_GRACE_MS to settle, then the race
 * rejects with the stop's own error (`turn-aborted`, or the lost lease) and `gaveUp` is set. Costs a place in its
 * signal's pending races while it runs (see `pendingOn`); a timer only once the turn is stopped.
 */
export class StopBound {
  gaveUp = false;
  race<T>(run: T | Promise<T>, signal: AbortSignal): Promise<T> {
    // (a model or a hook written in plain JavaScript may hand back its answer itself, not a promise of it: a value that
    // is no object cannot be a thenable, and is there before any stop)
    if (run === null || (typeof run !== "object" && typeof run !== "function")) return Promise.resolve(run);
    return new Promise<T>((resolve, reject) => {
      const pending = new Pending(this, signal, reject, signal.aborted ? undefined : racesOn(signal));
      Promise.resolve(run).then(
        (v) => {
          pending.settled();
          resolve(v);
        },
        (e: unknown) => {
          pending.settled();
          reject(e);
        },
      );
      if (pending.races === undefined) pending.giveUp();
      else pending.races.add(pending);
    });
  }
}
