/**
 * A served program has two names: the one it is served under (the key of
 * the record `serve` was given, or its own name in a list), which companions
 * call and keys are limited by, and the one its turns are recorded under
 * (its own, the definition's). The store knows only the second: every turn
 * is found again, listed, limited and run through this one mapping, so that
 * `{ helpdesk: desk }` lists, limits and runs its turns as "helpdesk", and a
 * turn of another program that is named "helpdesk" is never taken for it.
 */
/** A served program, as far as its names go: what its turns are recorded under. */
type Named = { readonly name: string };

export class ProgramNames {
  /** Recorded name → served name; `null` when two served programs record as it and neither is served under it. */
  readonly #servedAs = new Map<string, string | null>();
  readonly #served: ReadonlySet<string>;

  constructor(programs: ReadonlyMap<string, Named>) {
    this.#served = new Set(programs.keys());
    for (const [served, fn] of programs) {
      const recorded = fn.name;
      // the one served under its own name wins; otherwise a second of one name leaves it nobody's
      if (served === recorded) this.#servedAs.set(recorded, served);
      else if (!this.#servedAs.has(recorded)) this.#servedAs.set(recorded, served);
      else if (this.#servedAs.get(recorded) !== recorded) this.#servedAs.set(recorded, null);
    }
  }

  /** The served name of the program whose turns are recorded as `recorded` (`null`: none is served so, or which is not known). */
  servedAs(recorded: string): string | null {
    return this.#servedAs.get(recorded) ?? null;
  }

  /**
   * What a turn recorded as `recorded` is listed and limited as: its served
   * name; a program not served keeps its own, unless it would pass for one
   * served under that name (then `null`: a program nobody named, which no
   * key limited to programs sees).
   */
  shown(recorded: string | null): string | null {
    if (recorded === null) return null;
    const served = this.servedAs(recorded);
    if (served !== null) return served;
    return this.#served.has(recorded) || this.#servedAs.has(recorded) ? null : recorded;
  }

  /** Whether the turns an owner call of `served` records are found again as `served` (not taken for another served program's). */
  findsAgain(served: string, fn: Named): boolean {
    return this.servedAs(fn.name) === served;
  }
}
