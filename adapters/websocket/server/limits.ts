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
    // a clock set back (NTP, a resumed VM) adds nothing and takes nothing: time counts again from the new reading
    this.#tokens = Math.min(this.burst, this.#tokens + (Math.max(0, t - this.#last) / 1000) * this.perSecond);
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

/** How many sockets a server keeps, and of whom. */
export interface AdmissionLimits {
  /** Connections at once. */
  maxConnections: number;
  /** Sockets that have not said hello yet (they get a slot of their own, never an authenticated one's). */
  maxPending: number;
  /** Connections from one remote address, said hello or not. */
  maxPerAddress: number;
}

/** What admission needs of a connection. */
export interface Admitted {
  readonly address: string;
  /** Set once its hello was accepted. */
  readonly grant: unknown;
  close(code: number, reason: string): void;
}

/**
 * Whether a new socket from `address` may stay. Room is made by closing
 * the oldest socket that has not said hello (of that address, when the
 * address is at its limit): idle sockets can therefore never keep out a
 * companion that says hello at once; only connections that did say hello
 * make a newcomer wait (1013). `connections` is in the order they came
 * (a Set keeps it); those closed here are taken out of it at once.
 */
export function admit<C extends Admitted>(connections: Set<C>, address: string, limits: AdmissionLimits, evict: (c: C) => void): boolean {
  const oldestPending = (from?: string): C | undefined => {
    for (const c of connections) if (c.grant === null && (from === undefined || c.address === from)) return c;
    return undefined;
  };
  const makeRoom = (full: () => boolean, from?: string): boolean => {
    while (full()) {
      const victim = oldestPending(from);
      if (victim === undefined) return false;
      connections.delete(victim);
      evict(victim);
    }
    return true;
  };
  const count = (test: (c: C) => boolean): number => {
    let n = 0;
    for (const c of connections) if (test(c)) n++;
    return n;
  };
  return (
    makeRoom(() => count((c) => c.address === address) >= limits.maxPerAddress, address) &&
    makeRoom(() => count((c) => c.grant === null) >= limits.maxPending) &&
    makeRoom(() => connections.size >= limits.maxConnections)
  );
}
