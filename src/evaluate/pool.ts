/**
 * Runs `task(0)`, `task(1)`, … with at most `concurrency` at once, starting
 * them in order. No new task starts once `signal` aborts or `enough()` says
 * so; the ones running are waited for. Tasks keep their own errors; one
 * that throws anyway (a host's progress callback) stops new tasks, and the
 * pool rejects with its error only once the running ones ended, so nothing
 * of the run goes on after it settled.
 */
export async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>, options: { signal?: AbortSignal | undefined; enough?: () => boolean } = {}): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const stop = (): boolean => failure !== null || options.signal?.aborted === true || options.enough?.() === true;
  const lane = async (): Promise<void> => {
    while (next < total && !stop()) {
      try {
        await task(next++);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
