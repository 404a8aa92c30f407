/**
 * One listener on a run's signal, however many rows run at once: each row
 * gets a stop of its own, told from it. A listener per running row (and per
 * metric awaited) passed Node's limit of 10 on one signal, and Node printed
 * "Possible EventTarget memory leak detected" on every such run.
 */
export interface RunStops {
  /** A row's own stop: aborted with the run's reason when the run's signal aborts (at once, when it already has). */
  row(): { controller: AbortController; release(): void };
  /** Takes the run's one listener off (once the run ended). */
  dispose(): void;
}

export function runStops(signal: AbortSignal | undefined): RunStops {
  const live = new Set<AbortController>();
  const onAbort = (): void => {
    for (const c of live) c.abort(signal!.reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    row() {
      const controller = new AbortController();
      if (signal?.aborted) controller.abort(signal.reason);
      else live.add(controller);
      return { controller, release: () => live.delete(controller) };
    },
    dispose: () => signal?.removeEventListener("abort", onAbort),
  };
}
