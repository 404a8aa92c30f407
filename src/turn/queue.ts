/**
 * The event queue behind a stream of a turn (in this process, or on a
 * server): events are buffered as they come (a slow reader loses none) and
 * read once, in order, until the stream says it is finished.
 */
export class EventQueue<E> {
  #buffer: E[] = [];
  #head = 0;
  #wake: (() => void) | null = null;

  /** An event came. */
  push(event: E): void {
    this.#buffer.push(event);
    this.poke();
  }

  /** Something changed (an event, an end): a reader waiting for it looks again. */
  poke(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** The events, in order, until none is left and `finished()` says so (looked at again on each `poke`). */
  async *drain(finished: () => boolean): AsyncGenerator<E, void, undefined> {
    for (;;) {
      if (this.#head < this.#buffer.length) {
        const event = this.#buffer[this.#head]!;
        // drop what was read, now and then, so a long stream does not keep everything
        if (++this.#head > 1024) {
          this.#buffer.splice(0, this.#head);
          this.#head = 0;
        }
        yield event;
        continue;
      }
      if (finished()) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}
