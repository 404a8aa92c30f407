import { ConversationError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";

export type Liveness = NonNullable<Store["liveness"]>;

/** The Web Lock a running turn holds: `functai:<name>:<conversation>:<turn>`. */
export const lockName = (storeName: string, conversation: string, turn: string): string =>
  `functai:${storeName}:${conversation}:${turn}`;

/** The Web Locks API of this context, when it has one. */
export function defaultLocks(): LockManager | undefined {
  return (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
}

/**
 * Liveness by Web Locks. A timer in a hidden tab can be throttled past its
 * lease; a lock cannot: the browser holds it until it is released or its tab
 * (frame, worker) goes away. `hold` waits while another holder has the lock.
 * `check` validates ids (it throws on a bad one). `releaseAll` (on close)
 * frees every lock this handle holds and withdraws the holds still waiting.
 */
export function webLockLiveness(
  locks: LockManager,
  storeName: string,
  check: (conversation: string) => void,
): { liveness: Liveness; releaseAll(): void } {
  const holding = new Set<() => void>();
  const closing = new AbortController(); // withdraws holds still waiting when the store closes
  const nameOf = (conversation: string, turn: string): string => {
    check(conversation);
    if (typeof turn !== "string" || turn.length === 0) throw new TypeError("liveness: a turn id must be a non-empty string");
    return lockName(storeName, conversation, turn);
  };

  const liveness: Liveness = {
    async hold(conversation, turn) {
      const name = nameOf(conversation, turn);
      return new Promise<() => void>((resolve, reject) => {
        // Waits while another holder has it, like any exclusive lock request.
        locks
          .request(name, { mode: "exclusive", signal: closing.signal }, () => {
            // A grant already on its way when the store closed is not withdrawn by the signal: let it go at once.
            if (closing.signal.aborted) {
              reject(closing.signal.reason);
              return undefined;
            }
            let free!: () => void;
            // The lock is held exactly as long as this promise is pending.
            const held = new Promise<void>((r) => (free = r));
            const release = (): void => {
              holding.delete(release);
              free();
            };
            holding.add(release);
            resolve(release);
            return held;
          })
          .catch(reject);
      });
    },
    async isHeld(conversation, turn) {
      const name = nameOf(conversation, turn);
      const { held = [], pending = [] } = await locks.query();
      // A pending request is a live tab too: it holds the lock as soon as it is freed.
      return held.some((l) => l.name === name) || pending.some((l) => l.name === name);
    },
  };
  return {
    liveness,
    releaseAll() {
      closing.abort(new ConversationError("store-io", `IndexedDB store "${storeName}" closed while waiting for a Web Lock.`));
      for (const release of [...holding]) release();
    },
  };
}
