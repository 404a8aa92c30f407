import { isFunctaiError } from "../errors.js";
import type { JournalSink } from "../engine/journal.js";
import { LeaseLost } from "../engine/runtime.js";
import type { ConversationRecord } from "../records/types.js";
import type { Store } from "../store/types.js";

/**
 * Appends a running turn's records in order, each batch conditional on the
 * length it last saw: a record another process wrote meanwhile is looked
 * at, and a newer claim of this turn (or a stop) ends this run before its
 * next side effect.
 */
export class StoreWriter implements JournalSink {
  length: number;
  #chain: Promise<void> = Promise.resolve();
  constructor(
    readonly store: Store,
    readonly conversation: string,
    readonly turn: string,
    readonly attempt: number,
    length: number,
    readonly onFlush?: () => void,
  ) {
    this.length = length;
  }

  write(records: object[], durable: boolean): Promise<void> {
    const done = this.#chain.then(() => this.#append(records, durable));
    this.#chain = done.catch(() => undefined);
    return done;
  }

  /** Throws when `fresh` holds a newer claim of this turn or a stop. */
  check(fresh: readonly ConversationRecord[]): void {
    for (const r of fresh) {
      const rec = r as { kind: string; turn?: string; attempt?: number };
      if (rec.turn !== this.turn) continue;
      if (rec.kind === "lease" && (rec.attempt ?? 0) > this.attempt)
        throw new LeaseLost(`turn ${this.turn} was claimed by another process (attempt ${rec.attempt})`);
      if (rec.kind === "stop") throw new LeaseLost(`turn ${this.turn} was stopped`, true);
    }
  }

  async #append(records: object[], durable: boolean): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        this.length = await this.store.append(this.conversation, records, { expect: this.length, durable });
        this.onFlush?.();
        return;
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict") || tries > 20) throw e;
        const fresh = await this.store.read(this.conversation, this.length);
        this.check(fresh);
        this.length = fresh.length > 0 ? fresh[fresh.length - 1]!.seq : (await this.store.read(this.conversation)).length;
      }
    }
  }
}
