/**
 * A signal's abort as a promise, for racing work against it.
 */

/**
 * Resolves when `signal` aborts (at once when it already has); `dispose`
 * takes its listener off, so a long-lived signal keeps none per use.
 *
 * @example
 * const aborted = whenAborted(signal);
 * try { await Promise.race([work, aborted.promise]); } finally { aborted.dispose(); }
 */
export function whenAborted(signal: AbortSignal): { promise: Promise<void>; dispose(): void } {
  if (signal.aborted) return { promise: Promise.resolve(), dispose: () => undefined };
  let onAbort = (): void => undefined;
  const promise = new Promise<void>((resolve) => (onAbort = resolve));
  signal.addEventListener("abort", onAbort, { once: true });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

/**
 * `work`, or a rejection with `stopped(signal)` as soon as `signal` aborts
 * (at once when it already has). The work itself cannot be stopped: it goes
 * on, and its outcome after the stop goes nowhere (never an unhandled
 * rejection). The abort listener is taken off when either settles.
 *
 * @example
 * const listed = await untilAborted(listing(), signal, abortError);
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, stopped: (signal: AbortSignal) => unknown): Promise<T> {
  const aborted = whenAborted(signal);
  work.catch(() => {});
  const stop = aborted.promise.then((): never => {
    throw stopped(signal);
  });
  return Promise.race([work, stop]).finally(aborted.dispose);
}
