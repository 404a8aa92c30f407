/**
 * A request's messages without copying the history: the first `length`
 * messages of the tool loop's list, which only ever grows at its end. Making
 * one costs O(1), so a step's cost does not grow with the steps before it
 * (copying the list per step made a turn O(n²)).
 *
 * What a provider sees is what the request held when it was made, whatever
 * the loop appends later: `length` and indexes read the shared list within
 * the fixed length; anything else (a method such as `map`, iteration, keys,
 * a write) first takes a copy of those messages, once, and works on that
 * copy — a provider that changes its request changes only its own copy.
 */
import type { Message } from "../lm/types.js";

const indexOf = (prop: string | symbol): number => {
  if (typeof prop !== "string" || prop === "" || prop.length > 9) return -1;
  const i = Number(prop);
  return Number.isInteger(i) && i >= 0 && String(i) === prop ? i : -1;
};

/** The traps of one view: one small object per request, the methods shared. */
class View implements ProxyHandler<Message[]> {
  #copy: Message[] | undefined;
  readonly #list: readonly Message[];
  readonly #length: number;
  /** With `copy`, each message is shown as a copy of it, made when first read (`copied`: those made). */
  readonly #copyOne: ((m: Message) => Message) | undefined;
  #copied: Map<number, Message> | undefined;
  constructor(list: readonly Message[], length: number, copy?: (m: Message) => Message) {
    this.#list = list;
    this.#length = length;
    this.#copyOne = copy;
  }
  #at(i: number): Message {
    if (this.#copyOne === undefined) return this.#list[i]!;
    const copied = (this.#copied ??= new Map());
    let m = copied.get(i);
    if (m === undefined) copied.set(i, (m = this.#copyOne(this.#list[i]!)));
    return m;
  }
  #own(): Message[] {
    if (this.#copy !== undefined) return this.#copy;
    return (this.#copy = this.#copyOne === undefined ? this.#list.slice(0, this.#length) : Array.from({ length: this.#length }, (_, i) => this.#at(i)));
  }
  get(_target: Message[], prop: string | symbol): unknown {
    if (this.#copy === undefined) {
      if (prop === "length") return this.#length;
      const i = indexOf(prop);
      if (i >= 0) return i < this.#length ? this.#at(i) : undefined;
    }
    const c = this.#own();
    const value = Reflect.get(c, prop, c) as unknown;
    // methods run on the copy itself, at an array's speed, not through this proxy's traps
    return typeof value === "function" && prop !== "constructor" ? (value as (...a: unknown[]) => unknown).bind(c) : value;
  }
  has(_target: Message[], prop: string | symbol): boolean {
    if (this.#copy === undefined) {
      if (prop === "length") return true;
      const i = indexOf(prop);
      if (i >= 0) return i < this.#length;
    }
    return Reflect.has(this.#own(), prop);
  }
  set(_target: Message[], prop: string | symbol, value: unknown): boolean {
    return Reflect.set(this.#own(), prop, value);
  }
  deleteProperty(_target: Message[], prop: string | symbol): boolean {
    return Reflect.deleteProperty(this.#own(), prop);
  }
  defineProperty(_target: Message[], prop: string | symbol, descriptor: PropertyDescriptor): boolean {
    return Reflect.defineProperty(this.#own(), prop, descriptor);
  }
  ownKeys(): (string | symbol)[] {
    return Reflect.ownKeys(this.#own());
  }
  getOwnPropertyDescriptor(_target: Message[], prop: string | symbol): PropertyDescriptor | undefined {
    return Reflect.getOwnPropertyDescriptor(this.#own(), prop);
  }
  // a proxy cannot say it is frozen unless its target is, with the same keys: a view is never frozen
  preventExtensions(): boolean {
    return false;
  }
}

/**
 * What a watcher is shown of a request's messages: a view whose messages are
 * copies (`copy`, made as each is first read), so a watcher that changes a
 * message (redacting it for a log) changes only its copy, never what is sent
 * nor the history the next steps are built on. O(1) to make: a watcher that
 * reads only a few messages copies only those.
 */
export function copiedView(messages: readonly Message[], copy: (m: Message) => Message): Message[] {
  return new Proxy<Message[]>([], new View(messages, messages.length, copy));
}
