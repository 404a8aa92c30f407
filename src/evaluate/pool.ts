/**
 * Runs `task(0)`, `task(1)`, … with at most `concurrency` at once, starting
 * them in order. No new task starts once `signal` aborts or `enough()` says
 * so; the ones running are waited for. Tasks do not throw (they keep their
 * own errors).
 */
export async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>, options: { signal?: AbortSignal | undefined; enough?: () => boolean } = {}): Promise<void> {
  let next = 0;
  const stop = (): boolean => options.signal?.aborted === true || options.enough?.() === true;
  const lane = async (): Promise<void> => {
    while (next < total && !stop()) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}
