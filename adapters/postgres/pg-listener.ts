import type pg from "pg";

const noop = (): void => undefined;

/**
 * One LISTEN connection that comes back after it is lost: it reconnects
 * (100 ms doubling to 2 s) and tells its owner, who re-reads what it waits
 * for, since notifications are not kept while nobody listens.
 */
export class Listener {
  #client: pg.Client | null = null;
  #stopped = false;
  #retry: ReturnType<typeof setTimeout> | null = null;
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
      await client.end().catch(noop);
      return;
    }
    client.on("notification", (n) => {
      if (n.channel === this.channel) this.onNotify(n.payload ?? "");
    });
    const lost = (): void => {
      if (this.#client !== client) return;
      this.#client = null;
      void client.end().catch(noop);
      this.#again();
    };
    client.on("error", lost);
    client.on("end", lost);
    this.#client = client;
    try {
      await client.query(`LISTEN ${this.channel}`);
    } catch (e) {
      lost();
      throw e;
    }
    this.#delay = 100;
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
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(noop);
  }
}
