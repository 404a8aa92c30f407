/**
 * What a key may see and answer, turn by turn: its `conversations` limit
 * which conversations, its `programs` limit which programs' turns (the
 * program that sent the turn, as its `program` record names it). The same
 * rule for the waiting list, pushed events and every request about a turn.
 */
import { readConversation } from "../../../src/records/read-conversation.js";
import type { Clock } from "../../../src/runtime/clock.js";
import type { Store } from "../../../src/store/types.js";
import { allowsConversation, type Grant } from "./keys.js";
import type { WaitingEntry } from "../shared/protocol.js";
import type { ProgramNames } from "./names.js";
import type { WaitingWatcher } from "./watch.js";

/** Whether `grant` covers a turn of `program` (`null`: a program nobody named) in `conversation`. */
export const allowsTurn = (grant: Grant, conversation: string, program: string | null): boolean =>
  allowsConversation(grant, conversation) && (grant.programs === null || (program !== null && grant.programs.has(program)));

/** The entries of a waiting list that `grant` may see. */
export const visibleTo = (grant: Grant, all: readonly WaitingEntry[]): WaitingEntry[] =>
  all.filter((w) => allowsTurn(grant, w.conversation, w.program));

/**
 * The name of the program that sent `turn`, as it is served and limited
 * (`names.shown`; `null` when the conversation has no such turn, or its
 * program record names none). A turn's program never changes, so the
 * waiting list's entry is used when it has one; else the conversation is
 * read.
 */
export async function programOfTurn(
  store: Store,
  watcher: WaitingWatcher,
  conversation: string,
  turn: string,
  clock: Clock,
  names: ProgramNames,
): Promise<string | null> {
  const listed = watcher.all.find((w) => w.conversation === conversation && w.turn === turn);
  if (listed !== undefined) return listed.program;
  const state = readConversation(await store.read(conversation), { now: clock.now() });
  const info = state.turns.get(turn);
  return info === undefined ? null : names.shown(state.programs.get(info.program)?.name ?? null);
}

/**
 * Whether `grant` may start a turn in `conversation` (an owner call naming
 * it): a key limited to some programs, only where every turn is one of
 * theirs (a new conversation has none). A new turn reads the turns before
 * it as its history, and later turns read it: a turn in another program's
 * conversation would show that program's turns to this key's model (and so
 * to its caller), and put words in theirs.
 */
export async function mayJoin(grant: Grant, store: Store, conversation: string, clock: Clock, names: ProgramNames): Promise<boolean> {
  const programs = grant.programs;
  if (programs === null) return true;
  const state = readConversation(await store.read(conversation), { now: clock.now() });
  return [...state.turns.values()].every((info) => {
    const name = names.shown(state.programs.get(info.program)?.name ?? null);
    return name !== null && programs.has(name);
  });
}
