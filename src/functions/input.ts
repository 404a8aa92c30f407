import type { z } from "zod";
import type { Frame } from "../engine/frame.js";
import type { TurnCaller } from "../records/types.js";
import type { Settings } from "../settings.js";
import type { ToolContext } from "../tools/types.js";

/** Whether `x` is an AbortSignal (or behaves as one): what the `signal` options of calls and runs take. */
export const isAbortSignal = (x: unknown): x is AbortSignal =>
  typeof x === "object" && x !== null && typeof (x as AbortSignal).aborted === "boolean" && typeof (x as AbortSignal).addEventListener === "function";

/**
 * A call's options: any setting, plus a signal, and `ctx` (the calling frame) where the platform cannot carry it.
 *
 * @example
 * await answer("Where is A-1042?", { lm: scripted(["It is on its way."]), signal: AbortSignal.timeout(30_000) });
 */
export interface CallOptions extends Settings {
  signal?: AbortSignal;
  /** Set by `evaluate` and the optimizers: a conversation's turn record names the run (`caller`). */
  caller?: TurnCaller;
  ctx?: Frame | ToolContext | { frame: Frame };
}

/**
 * The input a call takes: the object, or with one input, its value alone.
 *
 * @example
 * const full: CallInput<{ question: z.ZodString }> = { question: "Where is A-1042?" };
 * const short: CallInput<{ question: z.ZodString }> = "Where is A-1042?"; // one input: its value alone
 * await answer(full); await answer(short);
 */
export type CallInput<S extends z.ZodRawShape> = z.input<z.ZodObject<S>> | SingleInput<S>;

type SingleInput<S extends z.ZodRawShape> = {
  [K in keyof S]: [Exclude<keyof S, K>] extends [never] ? (S[K] extends z.ZodType ? z.input<S[K]> : never) : never;
}[keyof S];

