import type pg from "pg";
import { NO_IDLE_SESSION_TIMEOUT, answers, endClient, keepsProcess, withDeadline } from "./deadline.js";

/**
 * How often a listening connection is asked whether it still answers. It
 * sends nothing else, so a connection the server ended while the network
 * kept the end from this host (a partition, a NAT or load balancer that
 * forgot the flow: half-open) would never be found lost, and every wait
 * would run out though the conversation grew.
 */
export const LISTENER_PROBE_MS = 5_000;

/**
 * How long the answer to a connection's LISTEN is waited for: one that never
 * comes (a network that stalls right then, a hung server) would hold the
 * listener for good, never probed nor made again, and every wait of the
 * store would run to its timeout though its conversation grew. As a lock
 * session's statements, 10 s at most.
 */
export const LISTEN_TIMEOUT_MS = 10_000;

/**
 * One LISTEN connection that comes back after it is lost: it reconnects
 * (100 ms doubling to 2 s) and tells its owner, who re-reads what it waits
 * for, since notifications are not kept while nobody listens. It is asked
 * `SELECT 1` every LISTENER_PROBE_MS (a connection the server forgot answers
 * with a reset; one that does not answer within PROBE_TIMEOUT_MS is lost).
 */
export class Listener {
  #client: pg.Client | null = null;
  #stopped = false;
  #retry: ReturnType<typeof setTimeout> | null = null;
  #probe: ReturnType<typeof setInterval> | null = null;
  #delay = 100;

  constructor(
    readonly open: () => Promise<pg.Client>,
    readonly channel: string,
    readonly onNotify: (payload: string) => void,
    readonly onReconnect: () => void,
  ) {}

  /** Connects and listens; rejects (a store-io error) when the first connection fails. */
  async start(): Promise<void> {
    const client = await this.open();
    if (this.#stopped) {
      await endClient(client);
      return;
    }
    client.on("notification", (n) => {
      if (n.channel === this.channel) this.onNotify(n.payload ?? "");
    });
    const lost = (): void => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#stopProbing();
      void endClient(client);
      this.#again();
    };
    client.on("error", lost);
    client.on("end", lost);
    // never keeps the process alive by itself: a wait under way has its own timer, and a store nobody waits on any
    // more kept a script whose work was done alive
    keepsProcess(client, false);
    this.#client = client;
    try {
      // idle between its probes, it is no idle session for the server to end (LISTEN last: the connection's query, as seen on the server)
      const listening = client.query(NO_IDLE_SESSION_TIMEOUT).then(() => client.query(`LISTEN ${this.channel}`));
      await withDeadline(listening, LISTEN_TIMEOUT_MS, () => {
        // (a timeout, in storeIo's words: a network or server that does not answer)
        throw new Error(`no answer to LISTEN within ${LISTEN_TIMEOUT_MS / 1000} s (timeout): its connection was dropped`);
      });
    } catch (e) {
      lost();
      throw e;
    }
    this.#delay = 100;
    this.#probing(client, lost);
  }

  /** Asks `client` every LISTENER_PROBE_MS whether it answers; `lost` when it does not (one probe out at a time). */
  #probing(client: pg.Client, lost: () => void): void {
    this.#stopProbing();
    let out = false;
    this.#probe = setInterval(() => {
      if (out || this.#client !== client) return;
      out = true;
      void answers((text) => client.query(text)).then((ok) => {
        out = false;
        if (!ok) lost();
      });
    }, LISTENER_PROBE_MS);
    (this.#probe as { unref?: () => void }).unref?.(); // never keeps a process alive
  }

  #stopProbing(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
  }

  #again(): void {
    if (this.#stopped || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.start().then(
        () => {
          if (!this.#stopped) this.onReconnect();
        },
        () => {
          this.#delay = Math.min(this.#delay * 2, 2_000);
          this.#again();
        },
      );
    }, this.#delay);
    (this.#retry as { unref?: () => void }).unref?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopProbing();
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    const client = this.#client;
    this.#client = null;
    if (client) await endClient(client);
  }
}
