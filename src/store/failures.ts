/**
 * Where a store failure came from (here, beside the stores, so the engine and
 * the conversation both ask it without an import circle). A turn whose own records the store refused
 * stops without ending (it reads `interrupted`, resumable: see
 * ConversationHost.onEnd); an error its program or a tool raised fails it,
 * whatever its code (a program may throw `FunctaiError("store-io", …)` of its
 * own database, a tool's body may send on another conversation whose store
 * fails). So a conversation's log marks each error its store calls throw with
 * that conversation (conversation/log.ts), and a turn asks the mark for its own
 * conversation, never the code alone (conversation/host.ts as the turn ends,
 * engine/tool-calls.ts at a tool's boundary).
 */
import { type ErrorCode, FunctaiError, isInstance } from "../errors.js";
import type { Store } from "./types.js";

/** A conversation as its store calls are marked: the store and the conversation's id in it. */
export interface StoreConversation {
  readonly store: Store;
  readonly id: string;
}

/** The codes of a store's failures (a journal that cannot be written or read); other codes are never a store failure. */
const STORE_CODES: ReadonlySet<ErrorCode> = new Set(["store-io", "store-conflict", "store-corrupt", "store-symlink"]);

/** Errors functai's own calls to a conversation's store threw (or made of them: a log's `store-conflict` after its tries), by the conversations they failed. */
const failures = new WeakMap<object, StoreConversation[]>();

const isObject = (e: unknown): e is object => (typeof e === "object" && e !== null) || typeof e === "function";

/** Marks `e` as a failure of functai's own call to `conversation`'s store. Returns it. */
export function markStoreFailure<E>(e: E, conversation: StoreConversation): E {
  if (!isObject(e)) return e;
  const by = failures.get(e);
  if (by === undefined) failures.set(e, [{ store: conversation.store, id: conversation.id }]);
  else if (!by.some((c) => c.store === conversation.store && c.id === conversation.id)) by.push({ store: conversation.store, id: conversation.id });
  return e;
}

/**
 * Whether `e` is a store failure (`store-io`, `store-conflict`, `store-corrupt`, `store-symlink`) of functai's own call
 * to `conversation`'s store: its journal failed. False for a program's or a tool's own error of the same code, for
 * another conversation's (one a tool's body sent on), and outside a conversation.
 */
export function isStoreFailure(e: unknown, conversation: StoreConversation | undefined): e is FunctaiError {
  // the mark first (a WeakMap asks no trap of a thrown Proxy), then the code, asked with isInstance
  const by = conversation !== undefined && isObject(e) ? failures.get(e) : undefined;
  if (!by?.some((c) => c.store === conversation!.store && c.id === conversation!.id)) return false;
  return isInstance(e, FunctaiError) && STORE_CODES.has((e as FunctaiError).code);
}

/** Whether `code` is a store failure's code (one only a conversation's own store call makes stop its turn). */
export const isStoreCode = (code: string): boolean => STORE_CODES.has(code as ErrorCode);
