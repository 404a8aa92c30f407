/**
 * The events this server sent of conversations' turns, numbered in the order
 * it sent them, kept for a while: a subscriber whose connection dropped
 * subscribes again `after` the last one it got and is sent those it missed,
 * each once, before anything newer. What the server no longer keeps (too
 * many since, too much to keep) or never sent (another server, or this one
 * since restarted: its id differs) is not guessed at: the companion is told
 * it missed events (and reads the turns' status again).
 */
import { randomUUID } from "node:crypto";
import type { WireEvent } from "../shared/protocol.js";

/** An event as kept: what the live subscribers were sent, and who may see it. */
export interface KeptEvent {
  readonly n: number;
  readonly conversation: string;
  readonly program: string | null;
  readonly event: WireEvent;
  readonly bytes: number;
}

/** Where a companion left off: the server that numbered what it got, and the last number. */
export interface Cursor {
  server: string;
  n: number;
}

/** How many events, and how many bytes of them, a server keeps at most. */
export const BACKLOG_LIMITS = { events: 2000, bytes: 4 * 1024 * 1024 } as const;

export type Missed = "server-changed" | "too-far-behind";

export class Backlog {
  /** This server's id, as long as it runs (a restart is another server: its numbers start again). */
  readonly server = randomUUID();
  #n = 0;
  #bytes = 0;
  readonly #kept: KeptEvent[] = [];
  /** Index of the oldest kept event in `#kept` (dropped from the front in batches, not one `shift` each). */
  #head = 0;

  constructor(readonly limits: { events: number; bytes: number } = BACKLOG_LIMITS) {}

  /** The number of the last event numbered. */
  get last(): number {
    return this.#n;
  }

  /** Numbers an event of `conversation` and keeps it (`bytes`: its size as sent). */
  keep(conversation: string, program: string | null, event: WireEvent, bytes: number): number {
    const n = ++this.#n;
    this.#kept.push({ n, conversation, program, event, bytes });
    this.#bytes += bytes;
    while (this.#kept.length - this.#head > this.limits.events || (this.#bytes > this.limits.bytes && this.#kept.length - this.#head > 1)) {
      this.#bytes -= this.#kept[this.#head]!.bytes;
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#kept.length) {
      this.#kept.splice(0, this.#head);
      this.#head = 0;
    }
    return n;
  }

  /**
   * The events after `cursor`, oldest first, or why they cannot be given: another server numbered them (or this one
   * before a restart), or some were no longer kept. A cursor past the last number is not this server's either.
   */
  since(cursor: Cursor): { events: readonly KeptEvent[] } | { missed: Missed } {
    if (cursor.server !== this.server || cursor.n > this.#n) return { missed: "server-changed" };
    const oldest = this.#head < this.#kept.length ? this.#kept[this.#head]!.n : this.#n + 1;
    if (cursor.n + 1 < oldest) return { missed: "too-far-behind" };
    return { events: this.#kept.slice(this.#head + (cursor.n + 1 - oldest)) };
  }
}
