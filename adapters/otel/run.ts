import { trace, SpanKind, SpanStatusCode, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { Approval } from "../../src/approval/types.js";
import type { Usage } from "../../src/lm/types.js";
import type { PluginToolCall } from "../../src/plugins/types.js";
import { describeError, FunctaiError, isInstance } from "../../src/errors.js";
import { toolKey as recordKey } from "../../src/records/keys.js";
import { NAME } from "../../src/tools/name.js";
import { boundedText, FUNCTAI, GEN_AI, jsonText, MCP } from "./attributes.js";
import { endQuietly } from "./quiet.js";

/** A tool call seen by `toolCall`: its span is made when it is first needed (it ran, or a call inside it did). */
interface ToolEntry {
  call: PluginToolCall;
  start: number;
  span?: Span;
  /** The approvals a delegated turn started in this call waits for: the call stops for a person, it did not fail. */
  waiting?: readonly Approval[];
  /** The stable code of what its body threw, when it had one (seen by `toolRun`): its span's `error.type`. */
  code?: string;
  /** What its body gave was a throw (seen by `toolRun`), with a code or not, and the error's text. */
  threw?: { message: string };
  /** The tracer threw as its span was started: it is not asked again (that was told once), and the calls inside it are under the turn's span. */
  refused?: true;
}

/** Where a delegated turn was started: a tool call of another turn's run (see `Run.caller`). */
export interface CallerAt {
  run: Run;
  turn: string | undefined;
  site: string;
}

/**
 * Keys are the turn's too: sites repeat from turn to turn (every turn's first
 * call is `desk#1`), and the plugin's spare run (plugin.ts, `loose`) holds the
 * calls of many turns at once.
 */
const toolKey = (call: PluginToolCall): string => `${call.turn}:${call.site}:${call.invocation}`;
/** The site of the calls a tool's body makes (engine/frame.ts, `childFrame`). */
const innerSite = (call: PluginToolCall): string => `${call.turn}:${call.site}/${call.name}#${call.invocation}`;
/** The AI function call that made it, in its run (see `Run.settle`). */
const callerKey = (turn: string | undefined, site: string, attempt: number | undefined): string => `${attempt}:${turn}:${site}`;

/**
 * The most tool calls a spare run (plugin.ts, `looseFor`) holds: it never
 * sees its turn end, so a call that gets no result (cut off, or waiting for
 * a person who never answers) would otherwise stay for good. Past it, the
 * oldest is let go (its span, if any, ended as `evicted`).
 */
export const LOOSE_LIMIT = 10_000;

/** An approval as a run's waits tell it apart (its id is its call's site and invocation, and paths differ between programs). */
const waitKey = (a: Approval): string => `${a.path}|${a.id}`;

/** Marks a span failed: its `error.type`, and its status (with the error's text only when contents are recorded). */
export function failSpan(span: Span, errorType: string, message: string | undefined, content: boolean): void {
  span.setAttribute(GEN_AI.errorType, errorType);
  span.setStatus(content && message !== undefined ? { code: SpanStatusCode.ERROR, message: boundedText(message) } : { code: SpanStatusCode.ERROR });
}

/** Ends a span that can no longer end otherwise, saying why in its state. */
const endAs = (span: Span, state: string, failed?: () => void): void =>
  endQuietly("ending an open span", span, () => {
    span.setAttribute(FUNCTAI.state, state);
    failed?.();
  });

// the SDK's spans start on the wall clock (then add performance time): a tool span's start is taken on the same clock
const now = (): number => Date.now();

/**
 * The spans of one run of a turn in this process: the turn's own
 * (`invoke_agent`), its model calls' (`chat`) and its tool calls'
 * (`execute_tool`). A call made inside a tool (an AI function used as a
 * tool) is a child of that tool's span; any other, of the turn's.
 */
export class Run {
  readonly #tools = new Map<string, ToolEntry>();
  /** The same entries by the site of the call made inside the tool (`desk#1/helper#2`). */
  readonly #inner = new Map<string, ToolEntry>();
  /** The keys of the entries by the call that made them ({@link callerKey}): settled without looking through them all. */
  readonly #byCaller = new Map<string, Set<string>>();
  readonly #chats = new Map<string, Span>();
  /** The tokens of the model calls this run made (replies replayed from the journal are not made again, nor counted). */
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  /** What delegated turns started in this run's tool calls wait for (the run stops for them, it does not fail). */
  readonly waits: Approval[] = [];
  /** The paths of this run's tool calls left in doubt (`turn-unfinished`): the run stops for a person to say what they did. */
  readonly unfinished: string[] = [];
  /** Their keys (`site:invocation`, as `resume({ results, rerun })` takes them): calls of one tool share a path. */
  readonly unfinishedIds: string[] = [];
  /** Where each of those was made (`turn:site`), to tell the tool calls whose bodies made them (see {@link leftInDoubt}). */
  readonly #doubtSites: string[] = [];
  /** For a delegated turn's run: the tool call of the calling run it was started in. */
  caller?: CallerAt;

  constructor(
    readonly tracer: Tracer,
    readonly content: boolean,
    /** The turn's span (none when the plugin came in below the turn's outermost call). */
    readonly span: Span | undefined,
    /**
     * The context its spans start in (with the turn's span set in it): the turn's caller's. A spare run (no turn
     * span) is given `context.active`: its spans start in the context active where each call is made (a traced
     * request's), never one fixed when the plugin was made.
     */
    readonly parent: Context | (() => Context),
    /** How many tool calls it holds at most (a spare run's: {@link LOOSE_LIMIT}). */
    readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  /** A spare run (plugin.ts `looseFor`, bounded): it never sees its turn end. */
  get spare(): boolean {
    return this.limit !== Number.POSITIVE_INFINITY;
  }

  /** The tool call a call of `turn` at `site` is made in: the nearest one up (`traced`: whose span the tracer did not refuse). */
  #innerAt(turn: string | undefined, site: string, traced = false): ToolEntry | undefined {
    for (let at = site; at.includes("/"); at = at.slice(0, at.lastIndexOf("/"))) {
      const entry = this.#inner.get(`${turn}:${at}`);
      if (entry && !(traced && entry.refused)) return entry;
    }
    return undefined;
  }

  /** The context a call of `turn` at `site` starts its spans in: its tool's span, the nearest one up, or the turn's. */
  contextFor(turn: string | undefined, site: string): Context {
    const entry = this.#innerAt(turn, site, true);
    const parent = typeof this.parent === "function" ? this.parent() : this.parent;
    const span = entry && this.#spanOf(entry);
    if (span) return trace.setSpan(parent, span);
    return this.span ? trace.setSpan(parent, this.span) : parent;
  }

  /** A delegated turn started at `site` (in one of this run's tool calls) ended waiting for these approvals. */
  delegateWaits(turn: string | undefined, site: string, approvals: readonly Approval[]): void {
    const entry = this.#innerAt(turn, site);
    if (entry) entry.waiting = approvals;
    this.stoppedFor(approvals);
  }

  /**
   * A tool call of this run stopped for these approvals (also one no delegated turn of which was seen end waiting:
   * see plugin.ts toolResult). Each is kept once: two calls of one delegate in a step both stop for what waits there.
   */
  stoppedFor(approvals: readonly Approval[]): void {
    // (a spare run keeps none, as it never sees its turn end; a run whose turn span the tracer refused sees it, and
    // tells the tool call it was started in what it stops for, as one with a span does)
    if (this.spare) return;
    const known = new Set(this.waits.map(waitKey));
    for (const a of approvals) if (!known.has(waitKey(a))) known.add(waitKey(a)), this.waits.push(a);
  }

  /**
   * A tool call of this run ended left in doubt (`turn-unfinished`). One whose body made a call already left in doubt
   * (an AI function used as a tool, stopped by its refund) stops for that call, and is not listed: the turn's records
   * hold the inner call alone as unfinished, and a person can settle only it (listed, the wait event named a call
   * nobody can answer for). Inner calls end first, so they are known when the call around them ends.
   */
  leftInDoubt(call: PluginToolCall): void {
    const inner = innerSite(call);
    if (this.#doubtSites.some((at) => at === inner || at.startsWith(`${inner}/`))) return;
    this.#doubtSites.push(`${call.turn}:${call.site}`);
    this.unfinished.push(call.path);
    this.unfinishedIds.push(recordKey(call.site, call.invocation));
  }

  /**
   * A delegated turn started at `site` (in one of this run's tool calls) stopped for its own calls left in doubt: the
   * call it was started in stops for those, and they are listed in its place (as the approvals a delegated turn waits
   * for are): the calling turn's records hold no doubt of their own, and a person settles the delegated turn's calls.
   */
  delegateUnfinished(turn: string | undefined, site: string, delegated: Run): void {
    // (one that named none, its calls' results not seen here: the delegate's call stays listed, never nothing at all)
    if (delegated.unfinished.length === 0) return;
    this.#doubtSites.push(`${turn}:${site}`);
    this.unfinished.push(...delegated.unfinished);
    this.unfinishedIds.push(...delegated.unfinishedIds);
  }

  /** Starts a model call's span, `name`d as the conventions say (`chat <model>`, or `chat` when the model has no name). */
  startChat(key: string, turn: string, site: string, name: string, attributes: Attributes): void {
    this.#chats.set(key, this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, this.contextFor(turn, site)));
  }

  /** Counts a model call this run made (the turn's span shows these, see plugin.ts `endTurnSpan`). */
  used(usage: Usage): void {
    this.usage.inputTokens += usage.inputTokens;
    this.usage.outputTokens += usage.outputTokens;
  }

  takeChat(key: string): Span | undefined {
    const span = this.#chats.get(key);
    this.#chats.delete(key);
    return span;
  }

  toolCalled(call: PluginToolCall): void {
    const key = toolKey(call);
    // the same call made again by a later run of the turn (a resumed one, in a spare run): the earlier one is over
    const earlier = this.#tools.get(key);
    if (earlier) this.#drop(key, earlier, "superseded");
    else if (this.#tools.size >= this.limit) {
      const [oldest, entry] = this.#tools.entries().next().value as [string, ToolEntry];
      this.#drop(oldest, entry, "evicted");
    }
    const entry = { call, start: now() };
    this.#tools.set(key, entry);
    this.#inner.set(innerSite(call), entry);
    const caller = callerKey(call.turn, call.site, call.attempt);
    const made = this.#byCaller.get(caller);
    if (made) made.add(key);
    else this.#byCaller.set(caller, new Set([key]));
  }

  /**
   * The AI function call at `site` asks the model again: every tool call it
   * made before has had its result, or never will (it was blocked, refused
   * or not runnable): those are let go. Only its own run's (`attempt`): two
   * runs of one turn at once are at different steps.
   */
  settle(turn: string, site: string, attempt: number): void {
    const made = this.#byCaller.get(callerKey(turn, site, attempt));
    if (!made) return;
    for (const key of [...made]) this.#drop(key, this.#tools.get(key)!, "no-result");
  }

  /** Lets go of an entry: no longer held, nor found by its caller. */
  #forget(key: string, call: PluginToolCall): void {
    this.#tools.delete(key);
    const caller = callerKey(call.turn, call.site, call.attempt);
    const made = this.#byCaller.get(caller);
    made?.delete(key);
    if (made?.size === 0) this.#byCaller.delete(caller);
  }

  #drop(key: string, entry: ToolEntry, state: string): void {
    this.#forget(key, entry.call);
    const inner = innerSite(entry.call);
    if (this.#inner.get(inner) === entry) this.#inner.delete(inner);
    if (entry.span) endAs(entry.span, state);
  }

  /**
   * The tool call is about to run (`toolRun`): its span starts now, not when it was first seen (`toolCall`),
   * before the plugins after this one and the built-in approval decided it (a person asked in this process).
   */
  toolRuns(call: PluginToolCall): Span | undefined {
    if (!this.#tools.has(toolKey(call))) this.toolCalled(call);
    const entry = this.#tools.get(toolKey(call))!;
    if (!entry.span) entry.start = now();
    return this.#spanOf(entry);
  }

  /** The tool's body threw: what it threw, when it has a stable code (an inner call's provider-rate-limit, step-limit, …), is its span's `error.type`. */
  toolThrew(call: PluginToolCall, e: unknown): void {
    const entry = this.#tools.get(toolKey(call));
    if (!entry) return;
    entry.threw = { message: describeError(e) };
    if (isInstance(e, FunctaiError)) entry.code = (e as FunctaiError).code;
  }

  hasTool(call: PluginToolCall): boolean {
    return this.#tools.has(toolKey(call));
  }

  /**
   * The tool call's span, made now if the call was not seen before (its `toolCall` came from another plugin layer),
   * and what a delegated turn started in it waits for, if it does.
   */
  takeTool(call: PluginToolCall): { span: Span | undefined; waiting: readonly Approval[] | undefined; code: string | undefined } {
    const key = toolKey(call);
    const held = this.#tools.get(key);
    const entry: ToolEntry = held ?? { call, start: now() };
    if (held) this.#forget(key, held.call);
    this.#inner.delete(innerSite(call));
    return { span: this.#spanOf(entry), waiting: entry.waiting, code: entry.code };
  }

  #spanOf(entry: ToolEntry): Span | undefined {
    if (entry.span || entry.refused) return entry.span;
    const { call } = entry;
    // a name no tool can have (the model's text, for a tool it does not have) is contents: recorded with them, bounded
    const named = NAME.test(call.name);
    const attributes: Attributes = {
      [GEN_AI.operation]: "execute_tool",
      [GEN_AI.toolType]: "function",
      [FUNCTAI.effects]: call.effects ?? "undeclared",
      [FUNCTAI.invocation]: call.invocation,
      [FUNCTAI.site]: call.site,
    };
    // (an MCP tool's call is a tools/call request to its server; gen_ai.tool.type stays "function": the conventions
    // name no type for MCP tools, and this process runs them as it runs its own)
    if (call.kind === "mcp") attributes[MCP.method] = "tools/call";
    if (named || this.content) {
      attributes[GEN_AI.toolName] = boundedText(call.name);
      attributes[FUNCTAI.path] = boundedText(call.path);
    }
    // (the model's id, never checked for length: bounded as contents are)
    if (call.id !== undefined) attributes[GEN_AI.toolCallId] = boundedText(call.id);
    if (this.content) attributes[GEN_AI.toolArguments] = jsonText(call.input);
    // its parent: the tool (if any) in whose body the calling AI function runs, else the turn
    try {
      entry.span = this.tracer.startSpan(
        named ? `execute_tool ${call.name}` : "execute_tool",
        { kind: SpanKind.INTERNAL, attributes, startTime: entry.start },
        this.contextFor(call.turn, call.site),
      );
    } catch (e) {
      entry.refused = true;
      throw e;
    }
    return entry.span;
  }

  /** Ends what is still open when the run ends (a call that stopped for a person, or was cut off), with the run's end. */
  endOpen(state: string): void {
    // each on its own: one that throws leaves none of the others open
    for (const span of this.#chats.values()) endAs(span, state);
    for (const { span, threw, code } of this.#tools.values()) {
      // a call whose run threw and failed its turn, its result never told (a toolRun hook after this one broke its
      // rules: plugin-failed): failed, as the turn's span is, not a span left with no status
      if (span) endAs(span, state, threw && state === "failed" ? () => failSpan(span, code ?? "error", threw.message, this.content) : undefined);
    }
    this.#tools.clear();
    this.#inner.clear();
    this.#byCaller.clear();
    this.#chats.clear();
  }
}
