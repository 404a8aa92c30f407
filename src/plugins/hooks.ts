/**
 * Where the engine calls the plugins' watching hooks: a run of a turn
 * (`turnStart` / `turnEnd`, at the outermost call) and each model call
 * (`modelRequest` / `modelResponse`), and around a tool's body (`toolRun`,
 * from engine/tool-calls.ts). The other tool hooks are called where tools
 * are decided and run (engine/approvals.ts, engine/tool-calls.ts).
 */
import { ApprovalError, FunctaiError, describeError, describeValue, isInstance } from "../errors.js";
import type { Frame } from "../engine/frame.js";
import { copiedView } from "../engine/message-view.js";
import { LeaseLost, Suspend } from "../engine/runtime.js";
import { StopBound } from "../engine/stop-bound.js";
import { keptJson } from "../engine/tool-boundary.js";
import type { LanguageModel, LMRequest, LMResponse } from "../lm/types.js";
import type { Plugin, PluginModelRequest, PluginToolCall, PluginTurn, PluginTurnEnd } from "./types.js";
import { copyOf } from "../runtime/values.js";
import { checkPluginNames } from "./names.js";

/**
 * The most a plugin's `keep` takes, in characters of the value's JSON (as a tool's error text is bounded): every later
 * read of the conversation (each send, a resume, `turns()`, a WebSocket listing) reads what was kept again.
 */
export const MAX_KEPT_CHARS = 100_000;

const pluginsOf = (frame: Frame): readonly Plugin[] => (frame.settings.plugins ?? []) as readonly Plugin[];

/**
 * Calls one hook; a hook that throws fails the turn (`plugin-failed`), as a broken tool hook does. Bounded as a
 * tool's run is (see StopBound): once the turn is stopped (`signal`), a hook that never answers (a span exporter
 * whose socket hangs) has STOP_GRACE_MS, then the call rejects with the stop's own error and the turn ends
 * without it; what it answers later goes nowhere.
 */
async function call(plugin: Plugin, what: string, run: () => unknown, signal: AbortSignal): Promise<void> {
  const bound = new StopBound();
  try {
    await bound.race(run(), signal);
  } catch (e) {
    if (bound.gaveUp) throw e;
    throw new FunctaiError("plugin-failed", `plugin ${plugin.name} failed in ${what}: ${describeError(e)}`, { cause: e });
  }
}

type Ending = PluginTurnEnd extends infer T ? (T extends unknown ? Omit<T, keyof PluginTurn | "usage"> : never) : never;

/** How a run that threw ended, as `turnEnd` is told. */
function endingOf(e: unknown, frame: Frame): Ending {
  // (asked with isInstance: a body may throw a Proxy that cannot be asked what it is)
  if (isInstance(e, Suspend)) return { state: "waiting", approvals: (e as Suspend).approvals };
  // (a run that lost its lease aborts its signal with the loss: a body that threw its own error on seeing it was interrupted, as the turn says)
  const { signal } = frame.runtime;
  const lost = isInstance(e, LeaseLost) ? e : signal.aborted && isInstance(signal.reason, LeaseLost) ? signal.reason : undefined;
  if (lost !== undefined) {
    const { stopped, message, code } = lost as LeaseLost;
    return stopped ? { state: "stopped", error: message, code } : { state: "interrupted", error: message, code };
  }
  // (stopped by its signal: the stop's own code, whatever the body threw on seeing it)
  if (signal.aborted) return { state: "stopped", error: describeError(e), code: "turn-aborted" };
  // (a failure the turn is let go on, not ended: its conversation's store refused a write. It reads interrupted)
  if (frame.runtime.interruptedBy?.(e)) return { state: "interrupted", error: describeError(e), code: (e as FunctaiError).code };
  if (isInstance(e, ApprovalError)) return { state: "failed", error: (e as ApprovalError).message, code: (e as ApprovalError).code };
  return { state: "failed", error: describeError(e), code: isInstance(e, FunctaiError) ? (e as FunctaiError).code : null };
}

/**
 * What `keep(data)` writes: `data` as its JSON (null for undefined). Refused
 * at once (`plugin-failed`, the hook that called it fails) when it has none:
 * queued as it was, a BigInt, a cycle or a throwing `toJSON` had the store
 * refuse the whole batch it rode in, and a function or a symbol (which JSON
 * leaves out) made a `plugin` record without `data`, damage that every later
 * read of the conversation refuses.
 */
function keptData(plugin: Plugin, data: unknown): unknown {
  const kept = keptJson(data);
  if ("why" in kept)
    throw new FunctaiError("plugin-failed", `plugin ${plugin.name}: keep takes a small JSON value, and this one is not (${kept.why})`);
  const size = kept.text?.length ?? 0;
  if (size > MAX_KEPT_CHARS)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin.name}: keep takes a small JSON value, and this one's JSON is ${size} characters (at most ${MAX_KEPT_CHARS}): nothing was kept. Keep an id or a summary`,
    );
  return kept.value ?? null;
}

/**
 * Before a plugin's `keep` is written: refused, `plugin-failed`, once the run of the turn it was given to ended
 * (its `turnEnd` hooks told): its journal is flushed no more, and the value would be lost without a word.
 */
function checkRunGoesOn(plugin: Plugin, run: { over: boolean }, turn: string): void {
  if (run.over)
    throw new FunctaiError(
      "plugin-failed",
      `plugin ${plugin.name} called keep after its run of turn ${turn} had ended: nothing was kept. Keep in the turn's hooks (turnEnd at the latest)`,
    );
}

/**
 * Runs the outermost call of a turn between the plugins' `turnStart` and
 * `turnEnd` hooks (any other call, or no such hook: just the body). Two
 * plugins of one name are refused first (see {@link checkPluginNames}).
 */
export function observeTurn<T>(frame: Frame, input: Record<string, unknown>, body: () => Promise<T>): Promise<T> {
  if (frame.root && frame.settings.plugins !== undefined && frame.settings.plugins.length > 1) {
    try {
      checkPluginNames(pluginsOf(frame));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  // without such hooks, the body's own promise: not one microtask more (parallel tools interleave as they did)
  const plugins = frame.root ? pluginsOf(frame).filter((p) => p.hooks.turnStart || p.hooks.turnEnd) : [];
  return plugins.length === 0 ? body() : watchedTurn(frame, input, body, plugins);
}

async function watchedTurn<T>(frame: Frame, input: Record<string, unknown>, body: () => Promise<T>, plugins: readonly Plugin[]): Promise<T> {
  const { runtime } = frame;
  const { journal } = runtime;
  // the hooks watch, as the model-call hooks do: each plugin shown its own copy, so one that edits what it sees
  // (redacting a log) changes neither the input the body runs with, nor (below) the result the caller gets, the
  // approvals a waiting turn asks about (the engine's own, frozen: an edit threw, and the waiting turn failed),
  // nor what the plugins after it are shown
  // `keep` is taken while the run goes on (its turnEnd hooks too); once it ended, the journal is flushed no more:
  // a value kept then would be lost without a word, so it is refused (see checkRunGoesOn)
  const run = { over: false };
  const views = plugins.map((plugin): [Plugin, PluginTurn] => {
    const view: PluginTurn = {
      turn: runtime.turn,
      name: frame.name,
      mode: runtime.mode,
      attempt: journal.attempt,
      resumed: journal.replaying,
      input: copyOf(input),
      // its own copy: the journal's list (and its entries, the very `data` of the records a later run of this turn
      // in this process resumes from) edited in place changed what that run was shown as kept
      kept: copyOf(journal.kept(plugin.name)),
      keep: (data) => {
        checkRunGoesOn(plugin, run, runtime.turn);
        void journal.add({ kind: "plugin", plugin: plugin.name, data: keptData(plugin, data) });
      },
    };
    if (runtime.conversation) view.conversation = runtime.conversation.id;
    return [plugin, view];
  });
  /**
   * Tells each started plugin the turn ended, every one of them even when
   * one throws (a span another plugin opened is closed all the same); then
   * throws the first failure.
   */
  const end = async (ending: Ending, started: readonly [Plugin, PluginTurn][] = views): Promise<void> => {
    let failure: { error: unknown } | undefined;
    for (const [plugin, view] of started) {
      if (!plugin.hooks.turnEnd) continue;
      try {
        const told = { ...view, usage: { ...runtime.usage }, ...copyOf(ending) } as PluginTurnEnd;
        await call(plugin, "turnEnd", () => plugin.hooks.turnEnd!(told), runtime.signal);
      } catch (e) {
        failure ??= { error: e };
      }
    }
    if (failure) throw failure.error;
  };
  try {
    return await runWatched(frame, body, views, end);
  } finally {
    run.over = true;
  }
}

/** The run itself, once its plugins' views are made (see watchedTurn): turnStart, the body, turnEnd. */
async function runWatched<T>(
  frame: Frame,
  body: () => Promise<T>,
  views: readonly [Plugin, PluginTurn][],
  end: (ending: Ending, started?: readonly [Plugin, PluginTurn][]) => Promise<void>,
): Promise<T> {
  const { runtime } = frame;
  const started: [Plugin, PluginTurn][] = [];
  try {
    for (const entry of views) {
      const [plugin, view] = entry;
      if (plugin.hooks.turnStart) await call(plugin, "turnStart", () => plugin.hooks.turnStart!(view), runtime.signal);
      started.push(entry);
    }
  } catch (e) {
    // a plugin that could not start fails the turn before it runs: those that started are ended (the first failure is the one told)
    throw await endThrown(frame, e, (ending) => end(ending, started).catch(() => undefined));
  }
  let result: T;
  try {
    result = await body();
    // a host that keeps the turn's end (a conversation) keeps it first: the hooks are told a kept fact (see keptEnd).
    // An end that could not be kept is this run's failure, told as any other
    if (runtime.keepEnd) await runtime.keepEnd({ state: "done", result });
  } catch (e) {
    throw await endThrown(frame, e, async (ending, kept) => {
      try {
        await end(ending);
      } catch (failure) {
        // a run that ended resumable (a person's question, an interruption, a stop), or whose end was kept before it
        // was told, keeps that end: a watcher that broke on it (a span exporter down) must not turn it into `failed`
        // and lose the person's question. Its failure is what the call rejects with (`runtime.turnEndFailure`), the
        // end is recorded as it was
        if ((ending.state === "failed" && !kept) || !isInstance(failure, FunctaiError) || (failure as FunctaiError).code !== "plugin-failed")
          throw failure;
        runtime.turnEndFailure ??= failure as FunctaiError;
      }
    });
  }
  if (!runtime.keepEnd) {
    await end({ state: "done", result }); // (each plugin is shown its own copy)
    return result;
  }
  try {
    await end({ state: "done", result });
  } catch (failure) {
    // the turn ended done, and that is kept: a watcher that broke on it is what the call rejects with
    // (`runtime.turnEndFailure`), as on a resumable end. A stop that cut a hook short leaves the turn done
    if (isInstance(failure, FunctaiError) && (failure as FunctaiError).code === "plugin-failed") runtime.turnEndFailure ??= failure as FunctaiError;
  }
  return result;
}

/**
 * A run that threw `e`: its end kept first where its host keeps ends and the run ends the turn (failed, or stopped
 * here: see keptEnd), then told (`tell`). Gives what the run throws: `e`, or the store's refusal of its end (the
 * turn is then let go by its host, and the hooks are told it was interrupted).
 */
async function endThrown(frame: Frame, e: unknown, tell: (ending: Ending, kept: boolean) => Promise<void>): Promise<unknown> {
  const ending = endingOf(e, frame);
  const kept = await keptEnd(frame, e, ending);
  if (typeof kept !== "boolean") {
    await tell(kept.ending, false);
    return kept.thrown;
  }
  await tell(ending, kept);
  return e;
}

/**
 * Keeps the end of a run that threw `e` before the hooks are told it (`ending`), where its host keeps ends
 * (`runtime.keepEnd`, a conversation) and the run ends the turn: failed, or stopped by its own signal (a stop that
 * reached it as a lost lease, another process's, is not this run's to write; nor is a wait or an interruption).
 * Told first, a process that died before the `ended` record was kept left the turn interrupted, and the run that
 * resumed it told another end (done) than the one the hooks had been told. True when kept, false when it is not
 * this run's to keep; the refusal (and the end it makes) when the store refused it.
 */
async function keptEnd(frame: Frame, e: unknown, ending: Ending): Promise<boolean | { ending: Ending; thrown: unknown }> {
  const { runtime } = frame;
  if (!runtime.keepEnd || (ending.state !== "failed" && ending.state !== "stopped")) return false;
  if (ending.state === "stopped" && (isInstance(e, LeaseLost) || isInstance(runtime.signal.reason, LeaseLost))) return false;
  try {
    await runtime.keepEnd(ending.state === "failed" ? { state: "failed", error: e } : { state: "stopped", reason: ending.error });
    return true;
  } catch (refused) {
    return { ending: endingOf(refused, frame), thrown: refused };
  }
}

/** Makes one model call between the plugins' `modelRequest` and `modelResponse` hooks. */
export function observeModelCall(
  frame: Frame,
  lm: LanguageModel,
  step: number,
  request: LMRequest,
  generate: () => Promise<LMResponse>,
): Promise<LMResponse> {
  if (!frame.settings.plugins?.length) return generate(); // (most calls: no list filtered out of none at every step)
  // (a call given plugins of its own, below the turn's outermost call: refused before its model is asked, and so before any tool of it runs)
  checkPluginNames(pluginsOf(frame));
  const plugins = pluginsOf(frame).filter((p) => p.hooks.modelRequest || p.hooks.modelResponse);
  return plugins.length === 0 ? generate() : watchedModelCall(frame, lm, step, request, generate, plugins);
}

/**
 * Where a `modelResponse` hook that throws failed, as its `plugin-failed` says: told of a model call that failed, the
 * call's own failure too (its code and words), which that error replaces: a rate limit must not read as a broken plugin.
 */
function toldWhat(outcome: { response: LMResponse } | { error: string; code?: string }): string {
  if (!("error" in outcome)) return "modelResponse";
  const code = outcome.code === undefined ? "" : `${outcome.code}: `;
  return `modelResponse, told the model call failed (${code}${describeValue(outcome.error, 300)})`;
}

/** How a failed model call is told to `modelResponse`: its words, and its code when it has one (`plugin-failed`, `provider-rate-limit`). */
const failedCall = (e: unknown): { error: string; code?: string } =>
  isInstance(e, FunctaiError) ? { error: describeError(e), code: (e as FunctaiError).code } : { error: describeError(e) };

async function watchedModelCall(
  frame: Frame,
  lm: LanguageModel,
  step: number,
  request: LMRequest,
  generate: () => Promise<LMResponse>,
  plugins: readonly Plugin[],
): Promise<LMResponse> {
  // the hooks watch: each plugin is shown its own copies, so one that edits what it sees (redacting a log) changes
  // neither the request sent (nor the next step's, built on its messages), nor the reply the function reads, nor what
  // the plugins after it are shown (the messages copied as a watcher reads them: a step's cost does not grow with the
  // history it carries)
  const { runtime } = frame;
  const shownTo = new Map<Plugin, PluginModelRequest>();
  const shownOf = (plugin: Plugin): PluginModelRequest => {
    let shown = shownTo.get(plugin);
    if (shown === undefined) {
      const watched = Object.assign({}, request, { messages: copiedView(request.messages, copyOf), tools: copyOf(request.tools) });
      shown = {
        turn: runtime.turn,
        site: frame.site,
        path: frame.path,
        step,
        attempt: runtime.journal.attempt,
        provider: lm.provider,
        model: lm.model,
        request: watched,
      };
      shownTo.set(plugin, shown);
    }
    return shown;
  };
  const asked: Plugin[] = [];
  /**
   * Tells each plugin shown the request how the call ended, every one of them even when one throws
   * (a span another plugin opened is closed all the same); then throws the first failure.
   */
  const told = async (outcome: { response: LMResponse } | { error: string; code?: string }): Promise<void> => {
    let failure: { error: unknown } | undefined;
    for (const plugin of asked) {
      if (!plugin.hooks.modelResponse) continue;
      try {
        const told = { ...shownOf(plugin), ...copyOf(outcome) };
        await call(plugin, toldWhat(outcome), () => plugin.hooks.modelResponse!(told), runtime.signal);
      } catch (e) {
        failure ??= { error: e };
      }
    }
    if (failure) throw failure.error;
  };
  try {
    for (const plugin of plugins) {
      if (plugin.hooks.modelRequest) await call(plugin, "modelRequest", () => plugin.hooks.modelRequest!(shownOf(plugin)), runtime.signal);
      asked.push(plugin);
    }
  } catch (e) {
    // the call is not made: those shown the request are told why (the first failure is the one thrown)
    await told(failedCall(e)).catch(() => undefined);
    throw e;
  }
  let response: LMResponse;
  try {
    response = await generate();
  } catch (e) {
    await told(failedCall(e));
    throw e;
  }
  await told({ response }); // (each plugin is shown its own copy)
  return response;
}

/**
 * What running a tool under the plugins' `toolRun` hooks came to, beside its
 * outcome: whether the body ran, and the first rule a hook broke (each one
 * fails the call, `plugin-failed`, once what the tool did is kept).
 */
export interface ToolRunWatch {
  ran: boolean;
  broken?: FunctaiError;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };
const settle = (p: Promise<unknown>): Promise<Settled> =>
  p.then(
    (value): Settled => ({ ok: true, value }),
    (error: unknown): Settled => ({ ok: false, error }),
  );
const started = (start: () => unknown): Promise<unknown> => {
  try {
    return Promise.resolve(start());
  } catch (e) {
    return Promise.reject(e);
  }
};

/**
 * Runs a tool's body (`body`) inside the plugins' `toolRun` hooks, the first
 * outermost. Settles as the body did (its value or its error), whatever a
 * hook gave back; `watch` says whether the body ran and which hook broke its
 * rules. When the body never ran (a hook threw, or returned without calling
 * `run`), it rejects with that hook's `plugin-failed`. No such hook: the
 * body's own promise (not one microtask more: parallel tools interleave as they did).
 */
export function aroundTool(
  frame: Frame,
  call: () => PluginToolCall,
  body: () => Promise<unknown>,
  watch: ToolRunWatch,
  /** Asked when a hook lets the body run (a hook may have waited: a changing tool asks for its lease again); it throws to stop it. */
  before?: () => void | Promise<void>,
): Promise<unknown> {
  const plugins = frame.settings.plugins?.length ? pluginsOf(frame).filter((p) => p.hooks.toolRun) : [];
  if (plugins.length === 0) {
    watch.ran = true;
    return body();
  }
  return aroundHooks(plugins, call(), body, watch, before);
}

async function aroundHooks(
  plugins: readonly Plugin[],
  call: PluginToolCall,
  body: () => Promise<unknown>,
  watch: ToolRunWatch,
  before: (() => void | Promise<void>) | undefined,
): Promise<unknown> {
  const broke = (plugin: Plugin, why: string, cause?: unknown): FunctaiError => {
    const e = new FunctaiError(
      "plugin-failed",
      `plugin ${plugin.name}, in toolRun around ${call.path}, ${why}`,
      cause === undefined ? undefined : { cause },
    );
    watch.broken ??= e;
    return e;
  };
  const layer = (at: number): Promise<unknown> => {
    if (at === plugins.length) {
      const go = (): Promise<unknown> => {
        watch.ran = true;
        return started(body);
      };
      return before === undefined ? go() : started(before).then(go);
    }
    const plugin = plugins[at]!;
    let asked: Promise<unknown> | undefined;
    let over = false;
    const run = (): Promise<unknown> => {
      if (asked === undefined && !over) {
        asked = layer(at + 1);
        return asked;
      }
      // refused, never run again: marked handled, so a hook that drops it leaves no unhandled rejection (the call fails all the same)
      const refused = Promise.reject(
        broke(
          plugin,
          asked === undefined
            ? "called run after its hook had returned: the tool did not run"
            : "called run a second time: a tool runs once, and it did not run again",
        ),
      );
      refused.catch(() => undefined);
      return refused;
    };
    // (its own copy of the input: a hook that changes what it is shown changes nothing the tool runs with)
    const shown: PluginToolCall = { ...call, input: copyOf(call.input) };
    return settle(started(() => plugin.hooks.toolRun!(shown, run))).then(async (returned) => {
      over = true;
      if (asked === undefined)
        throw returned.ok
          ? broke(plugin, `returned ${describeValue(returned.value, 80)} without calling run: the tool did not run`)
          : broke(plugin, `failed before running the tool: ${describeError(returned.error)}`, returned.error);
      // the call's own outcome, once it ended (a hook that returned before it did is not the end of the tool)
      const inner = await settle(asked);
      if (returned.ok !== inner.ok || !Object.is(returned.ok ? returned.value : returned.error, inner.ok ? inner.value : inner.error))
        broke(
          plugin,
          returned.ok
            ? `returned ${describeValue(returned.value, 80)}, not what run gave: return it unchanged`
            : `threw ${describeError(returned.error)}, not what run gave: pass it on unchanged`,
          returned.ok ? undefined : returned.error,
        );
      if (inner.ok) return inner.value;
      throw inner.error;
    });
  };
  try {
    return await layer(0);
  } catch (e) {
    // never ran: the first hook that kept it from running says why (an outer hook may have made something else of that)
    if (!watch.ran) throw watch.broken ?? e;
    throw e;
  }
}
