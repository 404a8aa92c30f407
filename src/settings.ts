import type { ApproveSetting } from "./approval/types.js";
import { approveProblem } from "./approval/rule.js";
import { describeValue, FunctaiError } from "./errors.js";
import { MAX_TIMER_MS } from "./runtime/clock.js";
import type { LanguageModel } from "./lm/types.js";
import { checkPluginNames } from "./plugins/names.js";
import { HOOK_NAMES, type Plugin } from "./plugins/types.js";
import type { Store } from "./store/types.js";
import { checkStoreHere } from "./runtime/stores.js";
import { namedKeys, storeOptionProblem, unknownKeys } from "./runtime/values.js";

/**
 * How a running turn's lease is renewed (the `lease` setting).
 *
 * @example
 * configure({ lease: { renewMs: 1_000, ttlMs: 3_000 } });
 */
export interface LeaseSettings {
  /** How often a running turn renews its lease (default 10 s). */
  renewMs?: number;
  /** How long a lease lasts (default 30 s): a turn not renewed for that long is interrupted. */
  ttlMs?: number;
}

/**
 * Settings live in layers; the nearest wins (plugins add up, outermost first; a `lease` key by key).
 *
 * @example
 * configure({ lm: "gpt-4.1-mini", temperature: 0, maxSteps: 4, approve: "changes" });
 */
export interface Settings {
  lm?: LanguageModel | string;
  temperature?: number;
  maxTokens?: number;
  /** At most this many model calls per AI function call (default 8), then `StepLimit`. */
  maxSteps?: number;
  /** `"report"` (default): the model sees a tool's error and may retry; `"raise"`: the call fails. */
  toolErrors?: "report" | "raise";
  approve?: ApproveSetting;
  plugins?: readonly Plugin[];
  lease?: LeaseSettings;
  store?: Store | string;
}

export const SETTING_KEYS = [
  "lm",
  "temperature",
  "maxTokens",
  "maxSteps",
  "toolErrors",
  "approve",
  "plugins",
  "lease",
  "store",
] as const satisfies readonly (keyof Settings)[];

export const DEFAULT_MAX_STEPS = 8;

let globalSettings: Settings = {};
const ambientStack: Settings[] = [];

/** Picks the setting keys out of an object that may hold other things (a spec, call options). */
export function pickSettings(source: object | undefined): Settings {
  const out: Record<string, unknown> = {};
  if (!source) return out;
  for (const key of SETTING_KEYS) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out as Settings;
}

function check(settings: Settings): Settings {
  const { maxSteps, maxTokens, toolErrors, temperature } = settings;
  if (maxSteps !== undefined && !(Number.isInteger(maxSteps) && maxSteps >= 1))
    throw new FunctaiError("settings-invalid", `maxSteps must be a whole number ≥ 1, not ${String(maxSteps)}`);
  if (toolErrors !== undefined && toolErrors !== "report" && toolErrors !== "raise")
    throw new FunctaiError("settings-invalid", `toolErrors must be "report" or "raise", not ${String(toolErrors)}`);
  // An infinite temperature would be sent as JSON's null: a provider's default, not what was asked.
  if (temperature !== undefined && !(typeof temperature === "number" && Number.isFinite(temperature) && temperature >= 0))
    throw new FunctaiError("settings-invalid", `temperature must be a finite number ≥ 0, not ${describeValue(temperature, 40)}`);
  // Sent as the provider's reply limit: anything but a count is a refused request, found only once it is sent.
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && maxTokens >= 1))
    throw new FunctaiError("settings-invalid", `maxTokens must be a whole number ≥ 1, not ${describeValue(maxTokens, 40)}`);
  checkStore(settings.store);
  checkApprove(settings.approve);
  checkPlugins(settings.plugins);
  checkLease(settings.lease);
  return settings;
}

/**
 * A `lease` that can work: `{ renewMs?, ttlMs? }` (no other key), each a
 * number of ms from 1 to what a timer can wait; else `settings-invalid`. A time of 0, a negative
 * one, one that is not a number or one past a timer's reach would renew the
 * lease every millisecond (a durable write each), write a lease already over,
 * or fail when its `until` is written. Checked with every other setting
 * (`configure`, `using`, a call's, a conversation's), before any record or
 * model call. A renewal slower than the lease is allowed: the lease then
 * runs out between renewals, as tests of interrupted turns want.
 */
export function checkLease(lease: unknown): void {
  if (lease === undefined) return;
  const ok = (ms: unknown): boolean => ms === undefined || (typeof ms === "number" && ms >= 1 && ms <= MAX_TIMER_MS);
  // a key misspelt (`ttl`, `renewEveryMs`) would be read as not given: the default lease, with nothing to say so
  const onlyItsKeys = (): boolean => !Array.isArray(lease) && Object.keys(lease as object).every((key) => key === "renewMs" || key === "ttlMs");
  if (typeof lease !== "object" || lease === null || !onlyItsKeys() || !ok((lease as LeaseSettings).renewMs) || !ok((lease as LeaseSettings).ttlMs))
    throw new FunctaiError(
      "settings-invalid",
      `lease is { renewMs?, ttlMs? }, each a number of milliseconds from 1 to ${MAX_TIMER_MS}; not ${describeValue(lease)}`,
    );
}

/**
 * A `store` that can be used: a location (a non-empty text: "" would name the
 * working directory, or a database without a name; no URL scheme but
 * postgres://, which would name a directory such as `./redis:/host`) or an
 * object with `append` and `read`. Anything else would fail at the
 * conversation's first read with a TypeError.
 */
function checkStore(store: unknown): void {
  const problem = store === undefined ? undefined : storeOptionProblem(store);
  if (problem !== undefined) throw new FunctaiError("settings-invalid", problem);
  // (one this platform has no store for: a postgres:// URL in a browser, told where it is given, not at the first conversation)
  checkStoreHere(store);
}

/** Fails closed (approveProblem): a misspelt rule ("change", "/refund") would otherwise ask nobody about anything. */
function checkApprove(approve: unknown): void {
  const problem = approveProblem(approve);
  if (problem !== undefined) throw new FunctaiError("settings-invalid", problem);
}

function checkPlugins(plugins: unknown): void {
  if (plugins === undefined) return;
  if (!Array.isArray(plugins)) throw new FunctaiError("plugin-invalid", "plugins must be a list of { name, version, hooks }");
  for (const p of plugins as unknown[]) {
    const { name, version, hooks } = (p ?? {}) as { name?: unknown; version?: unknown; hooks?: Record<string, unknown> };
    const hooksOk =
      typeof hooks === "object" &&
      hooks !== null &&
      Object.entries(hooks).every(
        ([key, hook]) => (HOOK_NAMES as readonly string[]).includes(key) && (hook === undefined || typeof hook === "function"),
      );
    if (typeof name !== "string" || name === "" || typeof version !== "string" || !hooksOk)
      throw new FunctaiError(
        "plugin-invalid",
        `a plugin is { name, version, hooks: { ${HOOK_NAMES.map((h) => `${h}?`).join(", ")} } }, not ${describeValue(p)}`,
      );
  }
  // "approval" is the built-in approval's name in the records (a plugin's questions are kept under its name): a
  // plugin named so would be one question with the rule's, and a yes to its own question let a changing tool run
  const named = (plugins as Plugin[]).find((p) => p.name === "approval");
  if (named)
    throw new FunctaiError("plugin-invalid", 'a plugin may not be named "approval": the built-in approval\'s records are kept under that name');
  // (before any model call: at configure, using or the call, not once a turn runs)
  checkPluginNames(plugins as Plugin[]);
}

/**
 * Layers settings, later layers nearer: values override, plugins add up (each once, where first given), and a
 * `lease` is taken key by key (`renewMs`, `ttlMs`: each from the nearest layer that gives it). Replaced as a whole,
 * a nearer `{ renewMs: 60_000 }` put back the default 30 s lease under a farther `{ ttlMs: 120_000 }`: a lease
 * shorter than its renewal, which no layer asked for (a running turn read interrupted between renewals).
 */
export function mergeSettings(...layers: readonly (Settings | undefined)[]): Settings {
  const out: Settings = {};
  const plugins: Plugin[] = [];
  let lease: LeaseSettings | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    for (const key of SETTING_KEYS) {
      const value = layer[key];
      if (value === undefined) continue;
      // a plugin given again (configured twice, or in a later layer too) keeps its first place and runs once
      if (key === "plugins") {
        for (const plugin of value as readonly Plugin[]) if (!plugins.includes(plugin)) plugins.push(plugin);
      } else if (key === "lease") {
        const { renewMs, ttlMs } = value as LeaseSettings;
        lease = { ...lease, ...(renewMs !== undefined ? { renewMs } : {}), ...(ttlMs !== undefined ? { ttlMs } : {}) };
      } else (out as Record<string, unknown>)[key] = value;
    }
  }
  if (plugins.length > 0) out.plugins = plugins;
  if (lease !== undefined) out.lease = lease;
  return out;
}

/**
 * The settings `configure` or `withSettings` was given, when they are an
 * object (or nothing) of setting keys only: a text or a number would pick no
 * key at all, so `configure("gpt-4.1-mini")` would set nothing and say
 * nothing; a misspelt key would be dropped the same way. `fn.using` takes
 * its settings through this too.
 */
export function layerOf(where: string, settings: unknown): object | undefined {
  if (settings === undefined) return settings;
  if (typeof settings !== "object" || settings === null || Array.isArray(settings))
    throw new FunctaiError("settings-invalid", `${where} takes settings as an object ({ lm, temperature, … }), not ${describeValue(settings, 40)}`);
  // They take settings and nothing else, so a key that is none is a slip (`aprove`, `maxStep`): read as not
  // given, it would switch off what it meant to set (every approval, for `aprove: "changes"`), and say nothing.
  const odd = unknownKeys(Object.keys(settings), SETTING_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `${where}: ${namedKeys(odd, "is not a setting", "are not settings")}; settings are ${SETTING_KEYS.join(", ")}`,
    );
  return settings;
}

/**
 * Sets the outermost layer, for every call that does not say otherwise.
 *
 * @example
 * configure({ lm: "gpt-4.1-mini", temperature: 0 });
 */
export function configure(settings: Settings): void {
  const merged = mergeSettings(globalSettings, check(pickSettings(layerOf("configure", settings))));
  // configure's layer as it will stand: a plugin whose name an earlier configure gave another (a setup run twice)
  // is refused here, with that layer left as it was; taken, it failed every later call of the process
  checkPluginNames(merged.plugins ?? []);
  globalSettings = merged;
}

/**
 * Forgets everything `configure` set (tests).
 *
 * @example
 * resetConfiguration(); // configure() settings forgotten (tests)
 */
export function resetConfiguration(): void {
  globalSettings = {};
}

/**
 * Runs `fn` with these settings for the calls it starts. A call takes them
 * at its synchronous start, so this works without AsyncLocalStorage (in
 * browsers too); a call started after an `await` inside `fn` does not.
 *
 * @example
 * await withSettings({ approve: manager }, () => desk("Refund A-1042"));
 */
export function withSettings<R>(settings: Settings, fn: () => R): R {
  const layer = check(pickSettings(layerOf("withSettings", settings)));
  if (typeof fn !== "function")
    throw new FunctaiError("input-invalid", `withSettings(settings, fn): fn is the block to run, not ${describeValue(fn, 40)}`);
  // with configure's and the blocks open now: a plugin named as one of theirs would fail each call of the block
  if (layer.plugins !== undefined) checkPluginNames(mergeSettings(ambientSettings(), layer).plugins ?? []);
  ambientStack.push(layer);
  try {
    return fn();
  } finally {
    ambientStack.pop();
  }
}

/**
 * The configure + withSettings layers as they stand now (read at a call's synchronous start); `kept`: blocks a
 * conversation handle kept from where it was opened, between configure's and the blocks open now.
 */
export function ambientSettings(kept?: Settings): Settings {
  if (kept !== undefined) return mergeSettings(globalSettings, kept, ...ambientStack);
  return ambientStack.length === 0 ? globalSettings : mergeSettings(globalSettings, ...ambientStack);
}

/** Only the `withSettings` blocks open now: a nested call adds them to its caller's settings (configure is already there). */
export function blockSettings(): Settings {
  return ambientStack.length === 0 ? {} : mergeSettings(...ambientStack);
}

export { check as checkSettings };
