/**
 * Where a store failure came from (here, beside the stores, so the engine and
 * the conversation both ask it without an import circle). A turn whose own records the store refused
 * stops without ending (it reads `interrupted`, resumable: see
 * ConversationHost.onEnd); an error its program or a tool raised fails it,
 * whatever its code (a program may throw `FunctaiError("store-io", …)` of its
 * own database). So the store a conversation's turns write through marks each
 * error its calls throw, and the turn asks the mark, never the code alone
 * (conversation/host.ts as the turn ends, engine/tool-calls.ts at a tool's boundary).
 */
import type { Store } from "./types.js";

/** Errors a conversation's store calls threw (or functai made of them: a log's `store-conflict` after its tries). */
const failures = new WeakSet<object>();

/** Marks `e` as a failure of functai's own call to a conversation's store. Returns it. */
export function markStoreFailure<E>(e: E): E {
  if ((typeof e === "object" && e !== null) || typeof e === "function") failures.add(e as object);
  return e;
}

/** Whether `e` came from functai's own call to a conversation's store (not from a program's or a tool's code). */
export function fromStore(e: unknown): boolean {
  return ((typeof e === "object" && e !== null) || typeof e === "function") && failures.has(e as object);
}

const views = new WeakMap<Store, Store>();
const isView = new WeakSet<Store>();

/**
 * The store as a conversation calls it: the same store (its methods called on it, its other members as they are),
 * each error its methods throw or reject with marked (`fromStore`). One view per store, made once.
 */
export function storeCalls(store: Store): Store {
  if (isView.has(store)) return store;
  let view = views.get(store);
  if (view !== undefined) return view;
  const wrapped = new Map<PropertyKey, unknown>();
  view = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      let call = wrapped.get(key) as ((...args: unknown[]) => unknown) | undefined;
      if (call === undefined || (call as { of?: unknown }).of !== value) {
        const method = value as (...args: unknown[]) => unknown;
        call = (...args: unknown[]): unknown => {
          let out: unknown;
          try {
            out = Reflect.apply(method, target, args);
          } catch (e) {
            throw markStoreFailure(e);
          }
          const thenable = typeof out === "object" && out !== null && typeof (out as { then?: unknown }).then === "function";
          return thenable ? Promise.resolve(out).catch((e: unknown) => Promise.reject(markStoreFailure(e))) : out;
        };
        (call as { of?: unknown }).of = value;
        wrapped.set(key, call);
      }
      return call;
    },
  });
  views.set(store, view);
  isView.add(view);
  return view;
}
