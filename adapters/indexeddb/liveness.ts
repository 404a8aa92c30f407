import { LeaseLost } from "../../src/engine/runtime.js";
import { ConversationError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";

export type Liveness = NonNullable<Store["liveness"]>;

/** The Web Lock a running turn holds: `functai:<name>:<conversation>:<turn>`. */
export const lockName = (storeName: string, conversation: string, turn: string): string =>
  `functai:${storeName}:${conversation}:${turn}`;

/**
 * How long a hold waits while another holder has the turn's lock before it
 * is refused (`turn-claimed`: another tab runs the turn). A turn handed over
 * in one tab (it went waiting here, and is answered here at once) is let go
 * within milliseconds, so the wait covers that; a tab that lost a race to
 * answer a turn is told in seconds, not when the winner's whole run ends.
 */
export const HOLD_WAIT_MS = 2_000;

/** The Web Locks API of this context, when it has one. */
export function defaultLocks(): LockManager | undefined {
  return (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
}

/**
 * Liveness by Web Locks. A timer in a hidden tab can be throttled past its
 * lease; a lock cannot: the browser holds it until it is released or its tab
 * (frame, worker) goes away. `hold` waits while another holder has the lock,
 * for `waitMs` at most (then `turn-claimed`). `check` validates ids (it
 * throws on a bad one). `releaseAll` (on close) frees every lock this handle
 * holds and withdraws the holds still waiting.
 */
export function webLockLiveness(
  locks: LockManager,
  storeName: string,
  check: (conversation: string) => void,
  waitMs = HOLD_WAIT_MS,
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
        // Waits while another holder has it, like any exclusive lock request; withdrawn when the store closes, or after waitMs.
        const giveUp = new AbortController();
        const onClose = (): void => giveUp.abort(closing.signal.reason);
        if (closing.signal.aborted) onClose();
        else closing.signal.addEventListener("abort", onClose, { once: true });
        const timer = setTimeout(
          () => giveUp.abort(new LeaseLost(`turn ${turn} of conversation ${conversation} is running in another tab (its Web Lock stayed held for ${waitMs} ms)`, false, "turn-claimed")),
          waitMs,
        );
        const settled = (): void => {
          clearTimeout(timer);
          closing.signal.removeEventListener("abort", onClose);
        };
        locks
          .request(name, { mode: "exclusive", signal: giveUp.signal }, () => {
            settled();
            // A grant already on its way when the store closed (or the wait ran out) is not withdrawn by the signal: let it go at once.
            if (giveUp.signal.aborted) {
              reject(giveUp.signal.reason);
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
          .catch((e: unknown) => {
            settled();
            reject(giveUp.signal.aborted ? giveUp.signal.reason : e); // (the request rejects with an AbortError where the reason is not passed on)
          });
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
