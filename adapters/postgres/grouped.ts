/**
 * Statements that carry several calls each (group commit). A call goes at
 * once, alone, while fewer than `lanes` statements are out; the calls that
 * come meanwhile wait and go together in the next one. The sender gets the
 * calls of one statement in the order they came and settles each of them:
 * each call keeps its own outcome. (A call the sender left unsettled when
 * it throws gets that error.)
 */
export interface Call<I, R> {
  readonly item: I;
  resolve(result: R): void;
  reject(e: unknown): void;
}

export class Grouped<I, R> {
  #out = 0;
  #waiting: Call<I, R>[] = [];

  constructor(
    readonly lanes: number,
    readonly send: (calls: Call<I, R>[]) => Promise<void>,
  ) {}

  run(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#out >= this.lanes || this.#waiting.length === 0) return;
    const calls = this.#waiting;
    this.#waiting = [];
    this.#out++;
    void this.send(calls)
      .catch((e: unknown) => {
        for (const c of calls) c.reject(e); // (a settled one stays as it was)
      })
      .finally(() => {
        this.#out--;
        this.#next();
      });
  }
}
