/** A token bucket: `burst` messages at once, refilled at `perSecond`. */
export class TokenBucket {
  #tokens: number;
  #last: number;
  constructor(
    readonly perSecond: number,
    readonly burst: number,
    readonly now: () => number = Date.now,
  ) {
    this.#tokens = burst;
    this.#last = now();
  }

  /** Takes one token; false when there is none (the message is refused). */
  take(): boolean {
    const t = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((t - this.#last) / 1000) * this.perSecond);
    this.#last = t;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/**
 * How many messages a connection may send: a token bucket.
 *
 * @example
 * await serve({ store, programs: [desk], rate: { perSecond: 20, burst: 40 } });
 */
export interface RateOptions {
  /** Messages per second a connection may send, on average (default 50). */
  perSecond?: number;
  /** Messages it may send at once (default 100). */
  burst?: number;
  /** Refused or malformed messages before the connection is closed as abusive (default 20). */
  strikes?: number;
}
