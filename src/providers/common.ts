/**
 * Small helpers both providers share: reading the environment without
 * assuming Node, and reading a model's tool-call arguments without throwing.
 */
import { FunctaiError } from "../errors.js";
import type { ToolCall } from "../lm/types.js";

/** An environment variable, or undefined where there is no `process` (browsers). */
export function readEnv(name: string): string | undefined {
  // Guarded so this file loads in a browser bundle with no `process` shim.
  if (typeof process === "undefined" || typeof process.env !== "object") return undefined;
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * A tool call from the model's raw argument text. Invalid JSON never throws:
 * the call keeps the raw text as `input` and says why in `inputError`, so the
 * loop can tell the model and let it try again.
 */
export function toolCallFromText(id: string, name: string, raw: string): ToolCall {
  // A tool without parameters is often called with no argument text at all.
  if (raw.trim() === "") return { id, name, input: {} };
  try {
    return { id, name, input: JSON.parse(raw) as unknown };
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return { id, name, input: raw, inputError: `The arguments are not valid JSON (${detail}).` };
  }
}

/**
 * The URL an SDK client sends a request for `path` to, as the SDK joins them
 * (one slash between), for error messages; undefined for a client that does
 * not say its base URL.
 *
 * @example
 * endpointOf({ baseURL: "http://localhost:11434/v1/" }, "/chat/completions"); // "POST http://localhost:11434/v1/chat/completions"
 */
export function endpointOf(sdk: unknown, path: string): string | undefined {
  const base = (sdk as { baseURL?: unknown } | null)?.baseURL;
  if (typeof base !== "string") return undefined;
  return `POST ${base.endsWith("/") ? base.slice(0, -1) : base}${path}`;
}

/** Loads an SDK once per LM; a failed load is not cached, so a later call may try again. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}

/**
 * An optional peer SDK, imported on first use. A missing package is a
 * `FunctaiError("lm-missing")` naming what to install; `load` stays a literal
 * `import("pkg")` at the call site so bundlers still see it.
 */
export async function loadSdk<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    const missing = (e as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND" && text.includes(`'${pkg}'`);
    const why = missing ? "is not installed" : `could not be loaded (${text})`;
    throw new FunctaiError("lm-missing", `The "${pkg}" package ${why}. Install it next to functai: npm install ${pkg}`, { cause: e });
  }
}

/**
 * What a ready SDK client passed as `client` must have: both SDKs' clients
 * (`OpenAI`, `Anthropic`) do. By shape, so functai's published types never
 * import an optional SDK.
 */
export interface SdkClient {
  withOptions(options: { maxRetries: number }): unknown;
}
