/** What a handle posts after each committed append: the conversation's new length. */
export interface AppendNotice {
  conversation: string;
  length: number;
}

interface Waiter {
  conversation: string;
  after: number;
  /** true: the conversation grew past `after`; false: the store closed. */
  settle(grew: boolean): void;
}

const isNotice = (data: unknown): data is AppendNotice =>
  typeof data === "object" &&
  data !== null &&
  typeof (data as AppendNotice).conversation === "string" &&
  typeof (data as AppendNotice).length === "number";

/**
 * Wake-ups for `wait`, across tabs: each committed append is posted on a
 * BroadcastChannel, which reaches every other handle of the same name in this
 * origin (other tabs, frames, workers, other handles in this tab), and handed
 * to this handle's own waiters directly (a channel never hears its own posts).
 */
export class Wakeups {
  readonly #name: string;
  readonly #waiters = new Set<Waiter>();
  #channel: BroadcastChannel | undefined;
  #closed = false;

  constructor(channelName: string) {
    this.#name = channelName;
  }

  /** Whether appends in other tabs can wake us (false where BroadcastChannel is missing: callers poll). */
  get crossTab(): boolean {
    return typeof BroadcastChannel === "function";
  }

  /** Opens the channel on first use, so a store that never waits nor appends holds none. */
  #open(): BroadcastChannel | undefined {
    if (this.#channel === undefined && this.crossTab && !this.#closed) {
      const channel = new BroadcastChannel(this.#name);
      channel.onmessage = (event: MessageEvent<unknown>) => {
        if (isNotice(event.data)) this.#deliver(event.data);
      };
      // Node keeps its event loop alive for a listening channel; browsers have no unref.
      (channel as { unref?: () => void }).unref?.();
      this.#channel = channel;
    }
    return this.#channel;
  }

  #deliver(notice: AppendNotice): void {
    for (const w of this.#waiters) {
      if (w.conversation === notice.conversation && notice.length > w.after) w.settle(true);
    }
  }

  /** Tells this handle's waiters and every other handle that `conversation` now holds `length` records. */
  announce(notice: AppendNotice): void {
    this.#deliver(notice);
    if (!this.#closed) {
      this.#open()?.postMessage(notice);
    } else if (this.crossTab) {
      // An append under way when its handle closed commits all the same: other tabs are told of it on a
      // channel of its own, closed at once (a message posted before the close is still delivered).
      const once = new BroadcastChannel(this.#name);
      once.postMessage(notice);
      once.close();
    }
  }

  /**
   * Calls `settle(true)` on each notice that `conversation` grew past
   * `after` (a notice only: any script of the origin can post one, so the
   * caller reads the length before it believes it), or `settle(false)` if
   * this handle closes first. Returns a
   * function that stops listening. Listen before checking the length, so an
   * append between the check and the listening is never missed. Once this
   * handle is closed, settles false at once and opens nothing.
   */
  listen(conversation: string, after: number, settle: (grew: boolean) => void): () => void {
    if (this.#closed) {
      settle(false);
      return () => {};
    }
    this.#open();
    const waiter: Waiter = { conversation, after, settle };
    this.#waiters.add(waiter);
    return () => this.#waiters.delete(waiter);
  }

  /**
   * Makes every waiter read the length again, as a notice would: the database went away under the handle (another
   * tab deleted or upgraded it), and the read ends each wait with the store-io that says so, not at its next poll.
   */
  rouse(): void {
    for (const w of [...this.#waiters]) w.settle(true);
  }

  /** Settles every waiter with false and closes the channel. */
  close(): void {
    this.#closed = true;
    for (const w of [...this.#waiters]) w.settle(false);
    this.#waiters.clear();
    this.#channel?.close();
    this.#channel = undefined;
  }
}
