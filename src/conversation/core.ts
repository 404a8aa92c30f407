import type { Definition } from "../core/definition.js";
import { outcomeOf } from "../core/root-turn.js";
import type { EarlierTurn } from "../engine/ai-call.js";
import { ConversationReader, type ConversationState } from "../records/read-conversation.js";
import type { ConversationRecord } from "../records/types.js";
import type { Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import type { TurnActor, TurnSession } from "../turn/session.js";
import type { StreamControls } from "../turn/stream.js";
import type { Turn } from "./turn.js";
import { Waiting } from "./waiting.js";
import { WEB_LOCK } from "./host.js";
import { waitFor } from "xstate";

/** Until the turn stopped running (its waiting record is written before it leaves `running`). */
const settled = (session: TurnSession): Promise<unknown> => waitFor(session.actor, (s) => s.value !== "running" && s.value !== "boot");

/** The nearest turn from `id` up its parents that ended done (where a new turn goes). */
function doneAncestor(state: ConversationState, id: string | null): string | null {
  const seen = new Set<string>();
  for (let at = id; at !== null && !seen.has(at); ) {
    seen.add(at);
    const info = state.turns.get(at);
    if (!info) return null;
    if (info.state === "done") return at;
    at = info.parent;
  }
  return null;
}

/** What a conversation's turns share: the program, the store, the settings. */
export class ConversationCore {
  constructor(
    readonly id: string,
    readonly def: Definition,
    readonly store: Store,
    readonly settings: () => Settings,
  ) {}

  /** Turn ids by the `request_id` their turn records carry (as last read). */
  #requests = new Map<string, string>();

  #walk(reader: ConversationReader, r: ConversationRecord): void {
    const rec = r as unknown as { kind: string; turn?: unknown; request_id?: unknown };
    if (rec.kind === "turn" && typeof rec.request_id === "string" && typeof rec.turn === "string" && !this.#requests.has(rec.request_id))
      this.#requests.set(rec.request_id, rec.turn);
    reader.addOne(r);
  }

  /** The turn sent for this request id, as last read. */
  requested(requestId: string): string | undefined {
    return this.#requests.get(requestId);
  }

  /** The conversation walked so far: each read walks only what was appended since. */
  #reader: ConversationReader | null = null;
  #reading: Promise<unknown> = Promise.resolve();

  /** The conversation's state now (reads what the store holds beyond what was read before). */
  read(): Promise<ConversationState> {
    // one read at a time: two at once would walk the same new records twice
    const next = this.#reading.then(() => this.#read());
    this.#reading = next.catch(() => undefined);
    return next;
  }

  async #read(): Promise<ConversationState> {
    let reader = this.#reader;
    if (reader !== null) {
      const fresh = await this.store.read(this.id, reader.length);
      if (fresh.length > 0 && fresh[0]!.seq !== reader.length + 1) reader = null; // not the records after ours: walk it all again
      else for (const r of fresh) this.#walk(reader, r);
    }
    if (reader === null) {
      const walked = new ConversationReader();
      this.#requests = new Map();
      const visit = (r: ConversationRecord): void => this.#walk(walked, r);
      // a store that can stream a long conversation is not asked for all of it at once
      if (this.store.scan) await this.store.scan(this.id, 0, visit);
      else for (const r of await this.store.read(this.id)) visit(r);
      this.#reader = reader = walked;
    }
    const state = reader.state(Date.now());
    const liveness = this.store.liveness;
    if (!liveness) return state;
    for (const info of state.turns.values()) {
      if (info.state === "interrupted" && (await liveness.isHeld(this.id, info.id))) {
        // a tab that still holds the turn's lock is alive, whatever its (throttled) lease says
        info.state = "running";
        if (state.head === info.id) state.next = { waits: info.id };
      } else if (info.state === "running" && info.holder?.endsWith(WEB_LOCK) && !(await liveness.isHeld(this.id, info.id))) {
        // its holder kept the lock for as long as it ran: the lock is free, so the tab closed (or the process died)
        info.state = "interrupted";
        if (state.head === info.id) state.next = { parent: doneAncestor(state, info.parent) };
      }
    }
    return state;
  }

  #state: ConversationState | null = null;

  /** Remembers the state last read, for `history`. */
  remember(state: ConversationState): ConversationState {
    this.#state = state;
    return state;
  }

  /** The earlier done turns of a branch, oldest first, ending at `parent`. */
  history(parent: string | null, state: ConversationState | null = this.#state): EarlierTurn[] {
    const out: EarlierTurn[] = [];
    const seen = new Set<string>();
    for (let id = parent; id !== null && state && !seen.has(id); ) {
      seen.add(id);
      const info = state.turns.get(id);
      if (!info) break;
      if (info.state === "done" && info.ended) out.push({ inputs: info.inputs, value: info.ended.value });
      id = info.parent;
    }
    return out.reverse();
  }

  readonly #snapshots = new WeakMap<TurnSession, Promise<void>>();

  /**
   * Keeps the actor's persisted snapshot as a `snapshot` record each time the
   * turn stops for a person (after its `waiting` record), so another process
   * rehydrates the same actor from it. Call before `actor.start()`.
   */
  keepSnapshots(session: TurnSession): void {
    const host = session.host as { note?: (snapshot: unknown) => Promise<void> };
    if (!host.note) return;
    let previous: unknown = null;
    session.actor.subscribe((snapshot) => {
      const entered = snapshot.value === "awaitingApproval" && previous === "running";
      previous = snapshot.value;
      if (!entered) return;
      // names and ids only (the machine's context holds no functions): JSON keeps it whole
      const persisted = JSON.parse(JSON.stringify(session.actor.getPersistedSnapshot())) as unknown;
      const before = this.#snapshots.get(session) ?? Promise.resolve();
      this.#snapshots.set(session, before.then(() => host.note!(persisted)));
    });
  }

  /** Resolves to the turn's answer; a turn that stops for a person rejects with `Waiting`. */
  async settle(session: TurnSession, turn: Turn, actor: TurnActor): Promise<unknown> {
    let waiting = false;
    const result = outcomeOf(session, () => {
      waiting = true;
      return "waiting";
    });
    try {
      return await result;
    } catch (e) {
      if (waiting || actor.getSnapshot().value === "awaitingApproval") throw await this.waiting(session, turn);
      throw e;
    }
  }

  /** The `Waiting` a turn that stopped for a person is told with (its snapshot kept first, its approvals read afresh). */
  async waiting(session: TurnSession, turn: Turn): Promise<Waiting> {
    await this.#snapshots.get(session); // kept before anyone is told the turn waits
    await turn.refresh();
    return new Waiting(turn);
  }

  /** A conversation stream's answers: recorded first (so any process sees them), then sent to the actor. */
  controls(session: TurnSession, turn: Turn): StreamControls {
    return {
      endsWhenWaiting: true,
      approve: async ({ id, by }) => {
        await settled(session);
        await turn.record("yes", by ?? null, null, id);
        session.actor.send({ type: "APPROVE", ...(id === undefined ? {} : { id }), by: by ?? null });
      },
      deny: async (reason, { id, by }) => {
        await settled(session);
        await turn.record("no", by ?? null, reason ?? null, id);
        session.actor.send({ type: "DENY", ...(id === undefined ? {} : { id }), by: by ?? null, reason: reason ?? null });
      },
      abort: () => session.actor.send({ type: "STOP" }),
    };
  }
}
