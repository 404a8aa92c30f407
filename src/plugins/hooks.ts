/**
 * Where the engine calls the plugins' watching hooks: a run of a turn
 * (`turnStart` / `turnEnd`, at the outermost call) and each model call
 * (`modelRequest` / `modelResponse`). The tool hooks are called where tools
 * are decided and run (engine/approvals.ts, engine/tool-calls.ts).
 */
import { ApprovalError, FunctaiError, describeError, isInstance } from "../errors.js";
import type { Frame } from "../engine/frame.js";
import { copiedView } from "../engine/message-view.js";
import { LeaseLost, Suspend } from "../engine/runtime.js";
import { keptJson } from "../engine/tool-boundary.js";
import type { LanguageModel, LMRequest, LMResponse } from "../lm/types.js";
import type { Plugin, PluginModelRequest, PluginTurn, PluginTurnEnd } from "./types.js";
import { copyOf } from "../runtime/values.js";

const pluginsOf = (frame: Frame): readonly Plugin[] => (frame.settings.plugins ?? []) as readonly Plugin[];

/** Calls one hook; a hook that throws fails the turn (`plugin-failed`), as a broken tool hook does. */
async function call(plugin: Plugin, what: string, run: () => unknown): Promise<void> {
  try {
    await run();
  } catch (e) {
    throw new FunctaiError("plugin-failed", `plugin ${plugin.name} failed in ${what}: ${describeError(e)}`, { cause: e });
  }
}

type Ending = PluginTurnEnd extends infer T ? (T extends unknown ? Omit<T, keyof PluginTurn | "usage"> : never) : never;

/** How a run that threw ended, as `turnEnd` is told. */
function endingOf(e: unknown, frame: Frame): Ending {
  // (asked with isInstance: a body may throw a Proxy that cannot be asked what it is)
  if (isInstance(e, Suspend)) return { state: "waiting", approvals: (e as Suspend).approvals };
  if (isInstance(e, LeaseLost))
    return (e as LeaseLost).stopped
      ? { state: "stopped", error: (e as LeaseLost).message }
      : { state: "interrupted", error: (e as LeaseLost).message };
  if (frame.runtime.signal.aborted) return { state: "stopped", error: describeError(e) };
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
  return kept.value ?? null;
}

/**
 * Runs the outermost call of a turn between the plugins' `turnStart` and
 * `turnEnd` hooks (any other call, or no such hook: just the body).
 */
export function observeTurn<T>(frame: Frame, input: Record<string, unknown>, body: () => Promise<T>): Promise<T> {
  // without such hooks, the body's own promise: not one microtask more (parallel tools interleave as they did)
  const plugins = frame.root ? pluginsOf(frame).filter((p) => p.hooks.turnStart || p.hooks.turnEnd) : [];
  return plugins.length === 0 ? body() : watchedTurn(frame, input, body, plugins);
}

async function watchedTurn<T>(frame: Frame, input: Record<string, unknown>, body: () => Promise<T>, plugins: readonly Plugin[]): Promise<T> {
  const { runtime } = frame;
  const { journal } = runtime;
  // the hooks watch, as the model-call hooks do: shown a copy, so one that edits what it sees (redacting a log)
  // changes neither the input the body runs with nor (below) the result the caller gets
  const shownInput = copyOf(input);
  const views = plugins.map((plugin): [Plugin, PluginTurn] => {
    const view: PluginTurn = {
      turn: runtime.turn,
      name: frame.name,
      mode: runtime.mode,
      attempt: journal.attempt,
      resumed: journal.replaying,
      input: shownInput,
      kept: journal.kept(plugin.name),
      keep: (data) => void journal.add({ kind: "plugin", plugin: plugin.name, data: keptData(plugin, data) }),
    };
    if (runtime.conversation) view.conversation = runtime.conversation.id;
    return [plugin, view];
  });
  /**
   * Tells each started plugin the turn ended, every one of them even when
   * one throws (a span another plugin opened is closed all the same); then
   * throws the first failure.
   */
  const end = async (ending: Ending, started = views): Promise<void> => {
    let failure: { error: unknown } | undefined;
    for (const [plugin, view] of started) {
      if (!plugin.hooks.turnEnd) continue;
      try {
        await call(plugin, "turnEnd", () => plugin.hooks.turnEnd!({ ...view, usage: { ...runtime.usage }, ...ending } as PluginTurnEnd));
      } catch (e) {
        failure ??= { error: e };
      }
    }
    if (failure) throw failure.error;
  };
  const started: [Plugin, PluginTurn][] = [];
  try {
    for (const entry of views) {
      const [plugin, view] = entry;
      if (plugin.hooks.turnStart) await call(plugin, "turnStart", () => plugin.hooks.turnStart!(view));
      started.push(entry);
    }
  } catch (e) {
    // a plugin that could not start fails the turn before it runs: those that started are ended (the first failure is the one told)
    await end(endingOf(e, frame), started).catch(() => undefined);
    throw e;
  }
  let result: T;
  try {
    result = await body();
  } catch (e) {
    await end(endingOf(e, frame));
    throw e;
  }
  await end({ state: "done", result: copyOf(result) });
  return result;
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
  const plugins = pluginsOf(frame).filter((p) => p.hooks.modelRequest || p.hooks.modelResponse);
  return plugins.length === 0 ? generate() : watchedModelCall(frame, lm, step, request, generate, plugins);
}

async function watchedModelCall(
  frame: Frame,
  lm: LanguageModel,
  step: number,
  request: LMRequest,
  generate: () => Promise<LMResponse>,
  plugins: readonly Plugin[],
): Promise<LMResponse> {
  // the hooks watch: they are shown copies, so one that edits what it sees (redacting a log) changes
  // neither the request sent (nor the next step's, built on its messages) nor the reply the function reads
  // (the messages copied as a watcher reads them: a step's cost does not grow with the history it carries)
  const watched = Object.assign({}, request, { messages: copiedView(request.messages, copyOf), tools: copyOf(request.tools) });
  const { runtime } = frame;
  const shown: PluginModelRequest = {
    turn: runtime.turn,
    site: frame.site,
    path: frame.path,
    step,
    attempt: runtime.journal.attempt,
    provider: lm.provider,
    model: lm.model,
    request: watched,
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
        await call(plugin, "modelResponse", () => plugin.hooks.modelResponse!({ ...shown, ...outcome }));
      } catch (e) {
        failure ??= { error: e };
      }
    }
    if (failure) throw failure.error;
  };
  try {
    for (const plugin of plugins) {
      if (plugin.hooks.modelRequest) await call(plugin, "modelRequest", () => plugin.hooks.modelRequest!(shown));
      asked.push(plugin);
    }
  } catch (e) {
    // the call is not made: those shown the request are told why (the first failure is the one thrown)
    await told({ error: describeError(e) }).catch(() => undefined);
    throw e;
  }
  let response: LMResponse;
  try {
    response = await generate();
  } catch (e) {
    await told(isInstance(e, FunctaiError) ? { error: describeError(e), code: (e as FunctaiError).code } : { error: describeError(e) });
    throw e;
  }
  await told({ response: copyOf(response) });
  return response;
}
