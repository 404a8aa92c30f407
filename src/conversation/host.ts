import type { Approval } from "../approval/types.js";
import type { Definition } from "../core/definition.js";
import type { EarlierTurn } from "../engine/ai-call.js";
import { rootFrame } from "../engine/frame.js";
import { Journal } from "../engine/journal.js";
import { LeaseLost, type TurnRuntime } from "../engine/runtime.js";
import { FunctaiError, describeError, isFunctaiError } from "../errors.js";
import { newHolder } from "../ids.js";
import { makeRecord } from "../records/make.js";
import type { ConversationRecord } from "../records/types.js";
import type { Settings } from "../settings.js";
import type { Store } from "../store/types.js";
import type { Outcome, TurnHost } from "../turn/session.js";
import { waitingOf } from "./waiting.js";
import { StoreWriter } from "./writer.js";

/** The end of a holder id whose turn holds a Web Lock for as long as its lease says it runs. */
export const WEB_LOCK = ":wl";

export const DEFAULT_RENEW_MS = 10_000;
export const DEFAULT_TTL_MS = 30_000;

export interface HostOptions {
  def: Definition;
  settings: Settings;
  store: Store;
  conversation: string;
  turn: string;
  inputs: Record<string, unknown>;
  history: readonly EarlierTurn[];
  /** The lease attempt already held (a new turn's first), or the last one seen (a turn to claim). */
  attempt: number;
  /** Whether this process holds the lease now (set for a new turn; a continued turn claims at its first run). */
  claimed: boolean;
  /** The store length this process last saw. */
  length: number;
  holder?: string;
  /** Runs before the turn is claimed (what a person said of unfinished tools); a refusal there ends nothing. */
  prepare?: () => Promise<number | void>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A conversation turn's host: journal on the store, a lease renewed while
 * it runs, claims by conditional append, and the records of waiting and
 * ending.
 */
export class ConversationHost implements TurnHost {
  readonly mode = "conversation" as const;
  readonly turn: string;
  readonly name: string;
  readonly holder: string;
  readonly conversation: { id: string; store: Store };
  attempt: number;
  #claimed: boolean;
  #length: number;
  #journal: Journal | null = null;
  #writer: StoreWriter | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #until = 0;
  #lost: LeaseLost | null = null;
  #release: (() => void) | null = null;
  #fresh: boolean;
  readonly #renewMs: number;
  readonly #ttlMs: number;

  constructor(readonly options: HostOptions) {
    this.turn = options.turn;
    this.name = options.def.name;
    // a holder that keeps a Web Lock says so: readers may then trust the lock over a (throttled) lease
    this.holder = options.holder ?? (options.store.liveness ? `${newHolder()}${WEB_LOCK}` : newHolder());
    this.conversation = { id: options.conversation, store: options.store };
    this.attempt = options.attempt;
    this.#claimed = options.claimed;
    this.#fresh = options.claimed;
    this.#length = options.length;
    this.#renewMs = options.settings.lease?.renewMs ?? DEFAULT_RENEW_MS;
    this.#ttlMs = options.settings.lease?.ttlMs ?? DEFAULT_TTL_MS;
    if (options.claimed) this.#until = Date.now() + this.#ttlMs;
  }

  /** The conversation's length after a write made for this turn (its first records): the turn's own appends expect it. */
  wrote(length: number): void {
    this.#length = length;
  }

  /** A lease record for this holder. */
  leaseRecord(attempt: number): object {
    const now = Date.now();
    return makeRecord("lease", { turn: this.turn, holder: this.holder, until: iso(now + this.#ttlMs), attempt }, now);
  }

  /** Claims the turn: a conditional append of a lease with `attempt` + 1. Of many claimants, one wins. */
  async #claim(): Promise<void> {
    const { store, conversation } = this.options;
    for (;;) {
      const attempt = this.attempt + 1;
      try {
        this.#length = await store.append(conversation, [this.leaseRecord(attempt)], { expect: this.#length, durable: true });
        this.attempt = attempt;
        this.#until = Date.now() + this.#ttlMs;
        this.#claimed = true;
        return;
      } catch (e) {
        if (!isFunctaiError(e, "store-conflict")) throw e;
        const fresh = await store.read(conversation, this.#length);
        for (const r of fresh) {
          const rec = r as { kind: string; turn?: string; attempt?: number };
          if (rec.turn === this.turn && rec.kind === "lease" && (rec.attempt ?? 0) >= attempt)
            throw new LeaseLost(`turn ${this.turn} was claimed by another process first`, false, "turn-claimed");
          if (rec.turn === this.turn && rec.kind === "ended") throw new LeaseLost(`turn ${this.turn} already ended`, false, "turn-claimed");
        }
        this.#length = fresh.length > 0 ? fresh[fresh.length - 1]!.seq : this.#length;
      }
    }
  }

  /**
   * Takes the turn's Web Lock (browsers) before any lease is written, so a
   * lease of this holder never stands without the lock: a tab that closes
   * frees it at once, and readers find the turn interrupted.
   */
  async holdLock(): Promise<void> {
    const liveness = this.options.store.liveness;
    if (!liveness || this.#release) return;
    if (!this.#claimed && (await liveness.isHeld(this.options.conversation, this.turn)))
      throw new LeaseLost(`turn ${this.turn} is running in another tab`, false, "turn-claimed");
    this.#release = await liveness.hold(this.options.conversation, this.turn);
  }

  #releaseLock(): void {
    this.#release?.();
    this.#release = null;
  }

  async journal(): Promise<Journal> {
    const { store, conversation, prepare } = this.options;
    if (prepare) {
      delete this.options.prepare;
      const length = await prepare();
      if (typeof length === "number") this.#length = length;
    }
    await this.holdLock();
    if (!this.#claimed) await this.#claim();
    // a turn just sent has recorded nothing yet: no need to read
    const records: ConversationRecord[] = this.#fresh ? [] : await store.read(conversation);
    this.#fresh = false;
    if (records.length > 0) this.#length = records[records.length - 1]!.seq;
    this.#writer = new StoreWriter(store, conversation, this.turn, this.attempt, this.#length);
    this.#journal = new Journal({ turn: this.turn, attempt: this.attempt, records, sink: this.#writer });
    await this.#startLease();
    return this.#journal;
  }

  async #startLease(): Promise<void> {
    this.#stopLease();
    this.#lost = null;
    await this.holdLock();
    this.#timer = setInterval(() => void this.#renew(), this.#renewMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stopLease(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #renewing: Promise<void> | null = null;

  /** Renews the lease; a renewal still on its way is waited for, not doubled (a slow store is not piled up). */
  #renew(): Promise<void> {
    this.#renewing ??= this.#renewOnce().finally(() => (this.#renewing = null));
    return this.#renewing;
  }

  async #renewOnce(): Promise<void> {
    if (!this.#journal || this.#lost) return;
    try {
      const until = Date.now() + this.#ttlMs;
      await this.#journal.add({ kind: "lease", holder: this.holder, until: iso(until) });
      await this.#journal.flush();
      this.#until = until;
    } catch (e) {
      // a renewal that fails or finds another holder stops the turn before its next side effect
      this.#lost = e instanceof LeaseLost ? e : new LeaseLost(`the lease of turn ${this.turn} could not be renewed: ${describeError(e)}`);
      this.#stopLease();
    }
  }

  beforeEffect(): void | Promise<void> {
    if (this.#lost) throw this.#lost;
    // a lease about to run out is renewed before acting, never acted on after it lapsed
    if (Date.now() > this.#until - this.#ttlMs / 3)
      return this.#renew().then(() => {
        if (this.#lost) throw this.#lost;
      });
    return undefined;
  }

  execute(runtime: TurnRuntime): Promise<unknown> {
    const { def, settings, inputs, history } = this.options;
    return def.execute(rootFrame(runtime, def.name, settings), inputs, history);
  }

  async onWait(approvals: Approval[]): Promise<void> {
    this.#stopLease();
    const journal = this.#journal!;
    void journal.add({ kind: "waiting", approvals: approvals.map(waitingOf) });
    await journal.flush(true);
    this.#releaseLock(); // only once the waiting record is kept
    this.#claimed = false;
    this.#length = this.#writer!.length;
  }

  async onEnd(outcome: Outcome, runtime: TurnRuntime): Promise<void> {
    this.#stopLease();
    // only the process that claimed the turn ends it: a failure before the claim (a refusal, a lost race) records nothing
    if (!this.#claimed) return this.#releaseLock();
    const journal = this.#journal ?? runtime.journal;
    const usage = { input_tokens: outcome.usage.inputTokens, output_tokens: outcome.usage.outputTokens };
    if (outcome.state === "done") void journal.add({ kind: "ended", state: "done", outputs: { result: outcome.result }, value: outcome.result, usage });
    else if (outcome.state === "failed") {
      const error = { code: outcome.error instanceof FunctaiError ? outcome.error.code : null, message: describeError(outcome.error) };
      void journal.add({ kind: "ended", state: "failed", error, usage });
    } else void journal.add({ kind: "ended", state: "stopped", error: { code: "turn-aborted", message: outcome.reason }, usage });
    try {
      await journal.flush(true);
    } finally {
      this.#releaseLock();
    }
  }

  onInterrupt(): void {
    this.#stopLease();
    this.#releaseLock();
  }

  /** Appends a record after the turn's records (a snapshot); best effort, never blocks the turn. */
  async note(snapshot: unknown): Promise<void> {
    const writer = this.#writer;
    if (!writer) return;
    await writer.write([makeRecord("snapshot", { turn: this.turn, snapshot }, Date.now())], false).catch(() => undefined);
  }
}
