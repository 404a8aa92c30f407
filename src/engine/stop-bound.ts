import { abortError } from "./runtime.js";

/**
 * How long a stopped turn waits for a tool that ignores its `ctx.signal` (a hung socket, a forgotten promise), or a
 * model that ignores its request's signal, before the stop settles without it: the same grace `server.close()` gives. A tool that honours its signal ends the stop
 * at once; this bounds only the one that does not.
 */
export const STOP_GRACE_MS = 5_000;

/**
 * Races a tool's run (or a model call) against a stop: once `signal` aborts, the run has STOP_GRACE_MS to settle, then the race
 * rejects with the stop's own error (`turn-aborted`, or the lost lease) and `gaveUp` is set. Costs one abort
 * listener while it runs; a timer only once the turn is stopped.
 */
export class StopBound {
  gaveUp = false;
  race<T>(run: T | Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const giveUp = (): void => {
        if (timer !== undefined) return;
        // (a timer that keeps the process alive: a script awaiting the stop is told it, not left with a pending promise)
        timer = setTimeout(() => {
          this.gaveUp = true;
          reject(abortError(signal));
        }, STOP_GRACE_MS);
      };
      const done = (): void => {
        signal.removeEventListener("abort", giveUp);
        if (timer !== undefined) clearTimeout(timer);
      };
      // (a model written in plain JavaScript may hand back its reply itself, not a promise of it)
      Promise.resolve(run).then(
        (v) => {
          done();
          resolve(v);
        },
        (e: unknown) => {
          done();
          reject(e);
        },
      );
      if (signal.aborted) giveUp();
      else signal.addEventListener("abort", giveUp, { once: true });
    });
  }
}
