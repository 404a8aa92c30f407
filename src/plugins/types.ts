import type { Approval } from "../approval/types.js";
import type { LMRequest, LMResponse, Usage } from "../lm/types.js";
import type { Effects } from "../records/types.js";

/**
 * What a plugin's `toolCall` hook is shown, before the tool runs.
 *
 * @example
 * const logCalls: Plugin = { name: "log-calls", version: "1", hooks: {
 *   toolCall: (call: PluginToolCall) => void console.log(call.path, call.effects, call.input),
 * } };
 */
export interface PluginToolCall {
  name: string;
  input: unknown;
  effects: Effects | null;
  path: string;
  site: string;
  invocation: number;
  /** The turn the call belongs to. */
  turn?: string;
  /** The model's id for the call (providers repeat them across replies: not a key). */
  id?: string;
  /**
   * The attempt of the run making the call (as {@link PluginTurn.attempt}): two runs of one turn
   * may go on at once (one that lost its lease has not stopped yet), and this tells their calls apart.
   * The engine gives it with every call; it is optional as `turn` is, for hooks called by hand (a
   * plugin then tells the runs apart by order, as otel() does).
   */
  attempt?: number;
  /**
   * What the tool is, as its definition says (`kind`): `"tool"` (made with `tool()`), `"mcp"` (an MCP server's, from
   * `mcpTools`: the call is a `tools/call` request to it), `"ai"` or `"program"` (a function used as a tool).
   * Optional, as `turn` is: hooks called by hand, and a call naming no tool, have none.
   */
  kind?: "tool" | "mcp" | "ai" | "program";
}

/**
 * A `toolCall` hook may change the input (`{ input }`), block the call with a
 * reason the model sees (`{ block }`), or ask a person a question of its own
 * (`{ ask }`). Returning nothing lets the call go on.
 *
 * @example
 * const limits: PluginHooks = {
 *   toolCall: (call): ToolCallDecision => {
 *     if (call.name !== "refund") return undefined;                       // go on
 *     const { amount } = call.input as { amount: number };
 *     if (amount > 500) return { block: "Refunds over 500 go to finance." }; // the model sees why
 *     if (amount > 50) return { ask: `Refund ${amount}?` };                  // a person answers
 *     return { input: { ...(call.input as object), note: "auto" } };       // changed input
 *   },
 * };
 */
export type ToolCallDecision = void | undefined | { input: unknown } | { block: string } | { ask: string };

/**
 * What a plugin's `toolResult` hook is shown, after the tool ran.
 *
 * @example
 * const redact: PluginHooks = {
 *   toolResult: (r: PluginToolResult) => (r.name === "lookupCustomer" ? { output: { ...(r.output as object), email: "(hidden)" } } : undefined),
 * };
 */
export interface PluginToolResult extends PluginToolCall {
  output?: unknown;
  error?: string;
  /** Who let it run: `null` when nobody was asked, else the yes it was given (`by` when known). */
  approved?: { by: string | null } | null;
  /**
   * Set when the call did not end but stopped its turn for a person (its
   * `error` says why): the turn is resumable, and the call is no failure.
   * `"turn-waiting"`: a delegated turn waits for the `approvals`, answered in
   * `conversation` (also when this call was refused because a turn there
   * already waits: it is sent again on resume). `"turn-unfinished"`: a
   * changing tool may have acted, and a person says what it did (no approvals).
   */
  needsPerson?: StoppedForPerson;
  /**
   * Set when a person answered this call, left in doubt by an earlier run (it may have acted: `turn-unfinished`), and
   * this run is the first to go on after that answer (told once, also when it goes on in another process: read from
   * the turn's records). `"given"`: the output is what the person said it returned, and the tool did not run (no
   * `toolCall` or `toolRun` hook was called for it); `"rerun"`: the tool ran again, because a person asked for it.
   */
  answered?: AnsweredDoubt;
  /**
   * Set when the call was refused by an answer (a person's `deny`, or the approve function's no): the call did not
   * run, and `output` is the refusal the model reads. Told once, by the run that goes on after the answer.
   * `by` and `reason` are the answer's (`null` when not given; the approve function's `by` is `"function"`).
   */
  refused?: { by: string | null; reason: string | null };
  /**
   * Set when the call never reached its tool, and no person decided that: `"tool-blocked"`, a plugin's `toolCall`
   * blocked it (`by` is the plugin, `reason` its block; `output` is the text the model reads); `"tool-unknown"`, the
   * model named no tool it has; `"input-invalid"`, its input was not JSON or the tool's schema refused it;
   * `"tool-failed"`, the tool's schema threw while checking it. For the last three, `error` is what the model reads
   * (`effects` is null for a tool that does not exist). Told by the run that first sends the model its step's results
   * (a run that replays a step sent before tells nothing again; as a refusal, one told by a run that died before its
   * next request's reply was kept is told again). It only watches: the model reads what it read.
   */
  unrun?: { code: "tool-blocked" | "tool-unknown" | "input-invalid" | "tool-failed"; by?: string; reason?: string };
}

/**
 * A person's answer to a tool call left in doubt (see {@link PluginToolResult.answered}): `resume({ results })` is
 * `"given"`, `resume({ rerun })` is `"rerun"`. `by` is who answered, when the records say (`null` otherwise).
 *
 * @example
 * const audit: PluginHooks = {
 *   toolResult: (r) => void (r.answered?.kind === "given" && console.log(r.path, "a person said it returned", r.output)),
 * };
 */
export interface AnsweredDoubt {
  kind: "given" | "rerun";
  by: string | null;
}

/**
 * Why a tool call stopped its turn for a person (see {@link PluginToolResult.needsPerson}).
 *
 * @example
 * const waits: PluginHooks = {
 *   toolResult: (r) => void (r.needsPerson?.code === "turn-waiting" && console.log(r.path, "waits in", r.needsPerson.conversation)),
 * };
 */
export interface StoppedForPerson {
  code: "turn-waiting" | "turn-unfinished";
  /** Where the approvals wait (the delegated conversation, the innermost one when delegates nest). */
  conversation?: string;
  approvals: readonly Approval[];
}

/**
 * A run of a turn, as the turn hooks see it: the first run, or one that goes on after a wait or a crash (`resumed`).
 *
 * @example
 * const timing: Plugin = { name: "timing", version: "1", hooks: {
 *   turnStart: (t: PluginTurn) => {
 *     if (!t.resumed) t.keep({ startedAt: Date.now() }); // kept in the turn's records
 *     console.log(t.name, t.mode, t.attempt, t.kept);
 *   },
 * } };
 */
export interface PluginTurn {
  turn: string;
  /** The outermost call's name. */
  name: string;
  mode: "plain" | "stream" | "conversation";
  /** The conversation, when the turn has one. */
  conversation?: string;
  /** 1 for the first run in a process; more for each claim after it (conversations). */
  attempt: number;
  /** Earlier runs recorded part of this turn: this run replays them. */
  resumed: boolean;
  input: Record<string, unknown>;
  /** What this plugin kept (`keep`) in earlier runs of this turn, oldest first (its own copy). */
  kept: readonly unknown[];
  /**
   * Keeps a small JSON value in the turn's records (a record `{ kind: "plugin", plugin, data }`), shown to later runs as `kept`.
   * A value that is not JSON (a BigInt, a cycle, a function) throws `plugin-failed`, failing the hook that called it.
   * So does a call once the run has ended (after its `turnEnd` hooks): nothing is kept then.
   */
  keep(data: unknown): void;
}

/**
 * How a run of a turn ended in this process. `code` is the stable code of why
 * it did not end done: a failure's (null when what was thrown has none), an
 * interrupted run's (`lease-lost`, `turn-claimed`, `turn-unfinished`, …) and a
 * stopped one's (`turn-aborted`).
 *
 * @example
 * const report: PluginHooks = {
 *   turnEnd: (end: PluginTurnEnd) => {
 *     if (end.state === "failed") console.error(end.turn, end.code, end.error);
 *     else console.log(end.turn, end.state, end.usage.outputTokens);
 *   },
 * };
 */
export type PluginTurnEnd = PluginTurn & { usage: Usage } & (
    | { state: "done"; result: unknown }
    | { state: "waiting"; approvals: readonly Approval[] }
    | { state: "failed"; error: string; code: string | null }
    | { state: "interrupted"; error: string; code?: string }
    | { state: "stopped"; error: string; code?: string }
  );

/**
 * A model call about to be made (replies found in the journal are not made again, and not shown).
 *
 * @example
 * const count: PluginHooks = {
 *   modelRequest: (r: PluginModelRequest) => void console.log(r.path, r.step, r.model, r.request.messages.length),
 * };
 */
export interface PluginModelRequest {
  turn: string;
  site: string;
  path: string;
  /** The model call's number within its AI function call, from 1. */
  step: number;
  /**
   * The attempt of the run making the call (as {@link PluginTurn.attempt}): two runs of one turn
   * may go on at once (one that lost its lease has not stopped yet, and both ask the same step), and
   * this tells their calls apart where turn, site and step do not.
   */
  attempt: number;
  provider: string;
  model: string;
  request: LMRequest;
}

/**
 * A model call that came back (`response`) or failed (`error`).
 *
 * @example
 * const tokens: PluginHooks = {
 *   modelResponse: (r: PluginModelResponse) => void console.log(r.model, r.response?.usage.outputTokens ?? r.error),
 * };
 */
export interface PluginModelResponse extends PluginModelRequest {
  /** The reply as the engine reads it: checked, and with a text-tools model's calls read out of its text. */
  response?: LMResponse;
  error?: string;
  /** The failure's stable code, when it has one (`provider-rate-limit`, `provider-response`, …). */
  code?: string;
}

type Maybe<T> = T | Promise<T>;

/**
 * A `toolRun` hook: it is shown the call (its own copy of the input the tool runs with) and `run`, which
 * runs the tool's body (with the plugins after this one around it) and gives what the body returned or
 * threw. Call `run` once, and return its promise (or what it resolves to) unchanged.
 *
 * @example
 * import { AsyncLocalStorage } from "node:async_hooks";
 * const requestIds = new AsyncLocalStorage<string>();
 * const tagged: Plugin = { name: "request-id", version: "1", hooks: {
 *   toolRun: (call: PluginToolCall, run) => requestIds.run(`${call.turn}/${call.site}#${call.invocation}`, run), // the tool's code reads requestIds.getStore()
 * } };
 */
export type ToolRunHook = (call: PluginToolCall, run: () => Promise<unknown>) => Promise<unknown>;

/**
 * A plugin's hooks: around each tool call (and its body: `toolRun`), each run of a turn and each model call.
 *
 * @example
 * const hooks: PluginHooks = { toolCall: (call) => (call.name === "refund" ? { block: "not today" } : undefined) };
 */
export interface PluginHooks {
  /** Before a tool runs: change its input, block it with a reason the model sees, or ask a person. */
  toolCall?(call: PluginToolCall): Maybe<ToolCallDecision>;
  /**
   * Around a tool's body, once it is about to run (after the `toolCall` hooks and any approval): call
   * `run` exactly once and return what it gives, unchanged (its value, or its rejection). For running the
   * body in a context of the plugin's own (otel() runs it in its `execute_tool` span's, so spans the
   * tool's code makes are children of it). Plugins nest in their order: the first is the outermost.
   * The engine holds a hook to that: `run` called again is refused (`plugin-failed`; the tool does not run
   * again), and a hook that returns without calling `run`, or hands back anything else (another value, an
   * error it swallowed or made), fails the call with `plugin-failed`. A tool that ran is journaled as what it
   * returned all the same (one that did not run, as not run). See {@link ToolRunHook}.
   */
  toolRun?: ToolRunHook;
  /** May replace the output the model sees (`{ output }`). */
  toolResult?(result: PluginToolResult): Maybe<void | undefined | { output: unknown }>;
  /** A run of a turn starts in this process (after a wait or a crash, again: `resumed`). */
  turnStart?(turn: PluginTurn): Maybe<void>;
  /**
   * That run ends: done, failed, waiting for a person, interrupted or stopped. In a conversation, an end that ends the
   * turn (done, failed, stopped here) is told once it is kept (its `ended` record), so a process that dies meanwhile
   * leaves it as told; one the store refused is told `interrupted`, as the turn reads. A hook that throws then does not
   * change that end: the call rejects `plugin-failed`.
   */
  turnEnd?(end: PluginTurnEnd): Maybe<void>;
  /** Before a model call is sent. */
  modelRequest?(request: PluginModelRequest): Maybe<void>;
  /** After it came back, or failed. */
  modelResponse?(response: PluginModelResponse): Maybe<void>;
}

/** The hooks a plugin may have. */
export const HOOK_NAMES = [
  "toolCall",
  "toolRun",
  "toolResult",
  "turnStart",
  "turnEnd",
  "modelRequest",
  "modelResponse",
] as const satisfies readonly (keyof PluginHooks)[];

/**
 * A plugin: a name, a version and hooks. Plugins run in settings-layer order (configure first); the built-in approval runs after them all.
 *
 * @example
 * const audit: Plugin = { name: "audit", version: "1", hooks: { toolResult: (r) => void console.log(r.name) } };
 * configure({ plugins: [audit] });
 */
export interface Plugin {
  name: string;
  version: string;
  hooks: PluginHooks;
}
