import type { z } from "zod";
import { frameCarrier } from "../engine/carrier.js";
import { childFrame, reframe, type Frame } from "../engine/frame.js";
import { abortError } from "../engine/runtime.js";
import { FunctaiError, describeValue } from "../errors.js";
import { ambientSettings, blockSettings, checkSettings, layerOf, mergeSettings, pickSettings, SETTING_KEYS, type Settings } from "../settings.js";
import { namedKeys, unknownKeys } from "../runtime/values.js";
import { modelInputSchema } from "../tools/tool.js";
import type { ToolContext, ToolLike } from "../tools/types.js";
import type { TurnStream } from "../turn/stream.js";
import { openConversation, type Conversation, type ConversationOptions } from "../conversation/conversation.js";
import { copyDemos, type AIState } from "../optimize/demo.js";
import { isAbortSignal, type CallInput, type CallOptions } from "./input.js";

export type { CallInput, CallOptions };
import { parseInput, type Definition } from "./definition.js";
import { runPlain, runStream, type Prediction } from "../turn/run.js";

/**
 * What `ai(...)` and `program(...)` return: call it, predict, stream, layer settings, open conversations.
 *
 * @example
 * const call: Callable<{ question: z.ZodString }, string> = answer;
 * await call("Where is A-1042?");
 * const { result, usage } = await call.predict("Where is A-1042?");
 * for await (const e of call.stream("Where is A-1042?")) if (e.type === "text") console.log(e.delta);
 */
export interface Callable<S extends z.ZodRawShape, O> extends ToolLike {
  (input: CallInput<S>, options?: CallOptions): Promise<O>;
  readonly kind: "ai" | "program";
  readonly name: string;
  readonly definition: Definition;
  /** The answer and the whole exchange: every model call, and tokens added up. */
  predict(input: CallInput<S>, options?: CallOptions): Promise<Prediction<O>>;
  /** The call as it happens: events, and approvals answered with `s.approve()` / `s.deny()`. */
  stream(input: CallInput<S>, options?: CallOptions): TurnStream<O>;
  /** The same function with these settings nearer than its own. */
  using(settings: Settings): Callable<S, O>;
  /** A conversation: turns kept in a store, waiting for people, resumed anywhere. */
  conversation(id: string, options?: ConversationOptions): Conversation<CallInput<S>, O>;
  /** The settings layers `using` added (nearest last). */
  readonly layers: readonly Settings[];
}

const isFrame = (x: unknown): x is Frame =>
  typeof x === "object" &&
  x !== null &&
  typeof (x as Frame).runtime === "object" &&
  (x as Frame).runtime !== null &&
  typeof (x as Frame).site === "string";

/** The calling frame `ctx` names: a frame, or a context holding one; anything else is refused (`{}` was taken as no ctx: a root call, outside the turn). */
function frameOf(ctx: unknown): Frame | undefined {
  if (ctx === undefined) return undefined;
  if (isFrame(ctx)) return ctx;
  const held = typeof ctx === "object" && ctx !== null ? (ctx as { frame?: unknown }).frame : undefined;
  if (isFrame(held)) return held;
  throw new FunctaiError("settings-invalid", `ctx must be the ctx a tool or program body is given (or its frame), not ${describeValue(ctx, 80)}`);
}

/**
 * A call's options as given: an object (or nothing), whose signal is an
 * AbortSignal. Checked before any model call: a string was taken as no
 * options, and a signal without addEventListener threw a TypeError mid-turn.
 */
function checkOptions(options: unknown): CallOptions | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object")
    throw new FunctaiError("settings-invalid", `a call's options must be an object such as { lm, signal }, not ${describeValue(options, 80)}`);
  // a key that is no option (`aprove`, `maxStep`) was read by nothing: it switched off what it meant to set (every
  // approval, for `aprove: "changes"`) without a word, where using, configure and withSettings refuse it
  const odd = unknownKeys(Object.keys(options), CALL_OPTION_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `a call's options: ${namedKeys(odd, "is not an option", "are not options")}; a call takes ${CALL_OPTION_KEYS.join(", ")}${odd.includes("key") ? " (key is for a conversation's send)" : ""}. Nothing was sent.`,
    );
  const { signal } = options as { signal?: unknown };
  if (signal !== undefined && !isAbortSignal(signal))
    throw new FunctaiError("settings-invalid", `signal must be an AbortSignal, not ${describeValue(signal, 80)}`);
  return options as CallOptions;
}

/** What a conversation's options hold: any setting (its store among them) and the clock. */
const CONVERSATION_OPTION_KEYS: readonly string[] = [...SETTING_KEYS, "clock"];

/**
 * A conversation's options: a key that is none (`aprove: "changes"`) was read
 * by nothing, and the conversation's turns ran every refund without waiting
 * for a person; refused (`settings-invalid`) when it is opened.
 */
function conversationOptions(name: string, options: unknown): ConversationOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options))
    throw new FunctaiError(
      "settings-invalid",
      `${name}.conversation(id, options): options must be an object such as { store }, not ${describeValue(options, 80)}`,
    );
  const odd = unknownKeys(Object.keys(options), CONVERSATION_OPTION_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `${name}.conversation(id, options): ${namedKeys(odd, "is not an option", "are not options")}; a conversation takes ${CONVERSATION_OPTION_KEYS.join(", ")}. Nothing was sent.`,
    );
  return options as ConversationOptions;
}

/** What a call's options hold: any setting, its signal, the calling frame, and who made it (evaluate, the optimizers). */
const CALL_OPTION_KEYS: readonly string[] = [...SETTING_KEYS, "signal", "ctx", "caller"];

/**
 * A call made inside a turn (a program's or a tool's body) runs under the
 * turn's signal: it stops when its turn stops, and nothing of it can stop on
 * its own without leaving the turn's journal half told. A signal of its own
 * was taken without a word and never read, so a call given an aborted one
 * (or a timeout) ran to its end; it is refused (`settings-invalid`), saying
 * how to stop it. The turn's own signal (`ctx.signal`) is taken.
 */
function turnSignalOnly(name: string, parent: Frame, options: CallOptions | undefined): void {
  const signal = options?.signal;
  if (signal === undefined || signal === parent.runtime.signal) return;
  throw new FunctaiError(
    "settings-invalid",
    `${name} was called inside ${parent.site} with a signal of its own: a call inside a turn stops when its turn stops (its signal is the turn's, ctx.signal), never alone. Stop the turn (the signal of its outermost call, or s.abort()), or leave signal out. Nothing was sent.`,
  );
}

/**
 * `predict` and `stream` start a turn of their own, wherever they are called
 * (a call left outside a program's turn on purpose). A `ctx` says the call
 * is to join the caller's turn: taken without a word, the call ran outside
 * it, neither journaled there nor asked about under its `approve`, so it is
 * refused (`settings-invalid`), saying how to join.
 */
function ownTurnOptions(name: string, how: "predict" | "stream", options: CallOptions | undefined): CallOptions | undefined {
  if (options?.ctx !== undefined)
    throw new FunctaiError(
      "settings-invalid",
      `${name}.${how}(input, { ctx }): ${how} starts a turn of its own, outside the caller's (neither kept in its journal nor asked about under its approve). To join the caller's turn call ${name}(input, { ctx }); to start one of its own leave ctx out. Nothing was sent.`,
    );
  return options;
}

export function makeCallable<S extends z.ZodRawShape, O>(def: Definition, layers: readonly Settings[] = []): Callable<S, O> {
  const ownSettings = (): Settings => mergeSettings(def.settings, ...layers);

  /** Settings of a root call, taken at its synchronous start (so withSettings works without AsyncLocalStorage). */
  const rootSettings = (options: CallOptions | undefined): Settings =>
    mergeSettings(ambientSettings(), ownSettings(), checkSettings(pickSettings(options)));

  async function nested<T>(parent: Frame, input: Record<string, unknown>, options: CallOptions | undefined): Promise<T> {
    // a call made once its turn was stopped does not begin: a program's body is user code, and would run
    if (parent.runtime.signal.aborted) throw abortError(parent.runtime.signal);
    // nor does one made once its turn ended (a timer or promise the body left running after it returned): it would pay
    // and run tools in the name of a turn whose last record is written, appending after it, with no lease held
    parent.runtime.checkRunning(`${def.name} was called inside ${parent.site}`);
    // a withSettings block inside a program or tool body is nearer than the caller's settings
    const settings = mergeSettings(parent.settings, blockSettings(), ownSettings(), checkSettings(pickSettings(options)));
    return (await def.execute(childFrame(parent, def.name, settings), input, [])) as T;
  }

  const call = (input: CallInput<S>, given?: CallOptions): Promise<O> => {
    try {
      const options = checkOptions(given);
      const parent = frameOf(options?.ctx) ?? frameCarrier.get();
      if (parent) turnSignalOnly(def.name, parent, options);
      const parsed = parseInput(def, input);
      if (parent) return nested<O>(parent, parsed, options);
      const settings = rootSettings(options);
      return runPlain<O>(def, { settings, input: parsed, signal: options?.signal }).then((p) => p.result);
    } catch (e) {
      return Promise.reject(e);
    }
  };

  const fn = call as Callable<S, O>;
  const props: Record<string, unknown> = {
    kind: def.kind,
    definition: def,
    description: def.description,
    // as a tool the model calls it: a key that is none of its inputs is refused, never dropped (as in a call from code)
    inputSchema: modelInputSchema(def.name, def.inputSchema.shape),
    toolEffects: def.toolEffects,
    composite: true,
    layers,
    predict(input: CallInput<S>, given?: CallOptions): Promise<Prediction<O>> {
      try {
        const options = ownTurnOptions(def.name, "predict", checkOptions(given));
        const parsed = parseInput(def, input);
        return runPlain<O>(def, { settings: rootSettings(options), input: parsed, signal: options?.signal, keepSteps: true });
      } catch (e) {
        return Promise.reject(e);
      }
    },
    stream(input: CallInput<S>, given?: CallOptions): TurnStream<O> {
      const options = ownTurnOptions(def.name, "stream", checkOptions(given));
      const parsed = parseInput(def, input);
      return runStream<O>(def, { settings: rootSettings(options), input: parsed, signal: options?.signal });
    },
    using(settings: Settings): Callable<S, O> {
      return makeCallable<S, O>(def, [...layers, checkSettings(pickSettings(layerOf("using", settings ?? null)))]);
    },
    conversation(id: string, options?: ConversationOptions): Conversation<CallInput<S>, O> {
      return openConversation<S, O>(def, layers, id, conversationOptions(def.name, options));
    },
    async runAsTool(input: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
      const frame = reframe(ctx.frame, mergeSettings(ctx.frame.settings, ownSettings()));
      return def.execute(frame, input, []);
    },
  };
  if (def.withState) Object.assign(props, optimizable(def, layers));
  Object.defineProperty(fn, "name", { value: def.name });
  for (const [key, value] of Object.entries(props)) Object.defineProperty(fn, key, { value, enumerable: true });
  return fn;
}

/** An AI function's worked examples and saved state (`demos`, `state()`, `withState()`). */
function optimizable(def: Definition, layers: readonly Settings[]): Record<string, unknown> {
  return {
    demos: Object.freeze(copyDemos(def.demos ?? [])),
    state: (): AIState => ({ instructions: def.description, demos: copyDemos(def.demos ?? []) }),
    withState: (state: AIState) => makeCallable(def.withState!(state), layers),
  };
}
