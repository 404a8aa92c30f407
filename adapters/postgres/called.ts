/**
 * `fn()`'s promise, a synchronous throw as its rejection: what an `async`
 * wrapper gives, without the promise and the await it adds per statement.
 *
 * @example
 * const rows = called(() => db.query("SELECT 1")); // never throws: rejects
 */
export function called<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn();
  } catch (e) {
    return Promise.reject(e);
  }
}
