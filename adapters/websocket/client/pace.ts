/**
 * Keeps a companion's requests within what the server said it takes of one
 * connection (its welcome's `rate` and `maxRuns`). The server refuses a
 * message past its rate, and each refusal is a strike: a person's "approve
 * all" over a long list would be refused in part, then closed as abusive
 * (4429) while the answers it had sent were running, each told as lost
 * though it ran. Held back here, every request is sent, in order, when the
 * server takes it. A server that says nothing is sent to at once (as before).
 */

/** What a server's welcome said it takes of one connection. */
export interface ServerLimits {
  rate?: { perSecond: number; burst: number };
  maxRuns?: number;
}

/** A request waiting for its turn to be sent. */
export interface Held {
  readonly id: string;
  /** Whether it runs a turn (counted against `maxRuns` until its reply or error). */
  readonly runs: boolean;
  /** A read (`waiting`, `status`): sent now or not at all, never held behind answers waiting for room among the runs (but never before what is held for the rate: see `hold`). */
  readonly read: boolean;
  send(): void;
}

/**
 * A share of the server's rate: frames reach the server no earlier than they
 * are sent, so a companion that keeps within its bucket by its own clock is
 * never refused; the margin is for clocks that run at slightly different speeds.
 */
const SHARE = 0.9;

export class Pacer {
  #limits: ServerLimits = {};
  #tokens = 0;
  #last = 0;
  readonly #queue: Held[] = [];
  /** Requests sent that run a turn, by id, until their reply or error. */
  readonly #running = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #flushing = false;

  constructor(readonly now: () => number = Date.now) {}

  /** A connection was welcomed with `limits`: its hello took one message of the burst. */
  start(limits: ServerLimits): void {
    this.#limits = limits;
    this.#tokens = limits.rate ? limits.rate.burst - 1 : 0;
    this.#last = this.now();
    this.#running.clear();
    this.#flush();
  }

  /**
   * The connection went: what was held, never sent, is handed back (to be failed), and nothing more is counted or
   * held until the next welcome (a request meanwhile is refused at once as not connected, as before any welcome).
   */
  drop(): Held[] {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#limits = {};
    this.#running.clear();
    return this.#queue.splice(0);
  }

  /**
   * How long a request asked for now would be held for the rate (ms): 0 when it goes at once. Only what goes
   * before it counts: a request that runs no turn passes those held for room among the runs (they take no token
   * until they go), so a caller call's answer or cancel is not refused for approvals held behind that very call.
   */
  delay(runs: boolean): number {
    const rate = this.#limits.rate;
    if (!rate) return 0;
    this.#refill(rate);
    const full = this.#limits.maxRuns !== undefined && this.#running.size >= this.#limits.maxRuns;
    let ahead = 0;
    for (const h of this.#queue) if (runs || !(h.runs && full)) ahead++;
    const short = ahead + 1 - this.#tokens;
    return short <= 0 ? 0 : (short / (rate.perSecond * SHARE)) * 1000;
  }

  /**
   * Sends `request` now when the limits allow, else when they do. A read the
   * rate does not allow now is not sent (false): asked again, nothing is
   * lost, where a list held back would be shown late. A read never goes
   * before what was held for the rate before it (a subscribe, an answer): a
   * token come due while its timer waited to run (a busy event loop) is
   * theirs first, and the server reads a companion's requests in the order
   * its user made them (a read's answer says the subscribe asked before it
   * is made). It passes only those held for room among the runs.
   */
  hold(request: Held): boolean {
    const rate = this.#limits.rate;
    if (request.read) {
      if (rate) {
        this.#flush();
        this.#refill(rate);
        if (this.#tokens < 1) return false;
        this.#tokens -= 1;
      }
      request.send();
      return true;
    }
    this.#queue.push(request);
    this.#flush();
    return true;
  }

  /** Takes request `id` back if it is still held (never sent): true when it was. */
  withdraw(id: string): boolean {
    const i = this.#queue.findIndex((h) => h.id === id);
    if (i < 0) return false;
    this.#queue.splice(i, 1);
    return true;
  }

  /** Request `id` got its reply or error (or was failed here): a turn it ran no longer counts. */
  done(id: string): void {
    if (this.#running.delete(id)) this.#flush();
  }

  #refill(rate: { perSecond: number; burst: number }): void {
    const t = this.now();
    this.#tokens = Math.min(rate.burst, this.#tokens + (Math.max(0, t - this.#last) / 1000) * rate.perSecond * SHARE);
    this.#last = t;
  }

  /** Sends what may go now, in order; a request that runs a turn waits for room without holding back the others (an answer to a call must pass). */
  #flush(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      const { rate, maxRuns } = this.#limits;
      for (let i = 0; i < this.#queue.length; ) {
        const next = this.#queue[i]!;
        if (next.runs && maxRuns !== undefined && this.#running.size >= maxRuns) {
          i++;
          continue;
        }
        if (rate) {
          this.#refill(rate);
          if (this.#tokens < 1) {
            if (!this.#timer) {
              const ms = Math.ceil(((1 - this.#tokens) / (rate.perSecond * SHARE)) * 1000);
              this.#timer = setTimeout(() => {
                this.#timer = null;
                this.#flush();
              }, ms);
            }
            return;
          }
          this.#tokens -= 1;
        }
        this.#queue.splice(i, 1);
        if (next.runs) this.#running.add(next.id);
        next.send();
      }
    } finally {
      this.#flushing = false;
    }
  }
}
