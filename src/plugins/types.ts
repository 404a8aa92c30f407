import type { Effects } from "../records/types.js";

/** What a plugin's `toolCall` hook is shown, before the tool runs. */
export interface PluginToolCall {
  name: string;
  input: unknown;
  effects: Effects | null;
  path: string;
  site: string;
  invocation: number;
}

/**
 * A `toolCall` hook may change the input (`{ input }`), block the call with a
 * reason the model sees (`{ block }`), or ask a person a question of its own
 * (`{ ask }`). Returning nothing lets the call go on.
 */
export type ToolCallDecision = void | undefined | { input: unknown } | { block: string } | { ask: string };

/** What a plugin's `toolResult` hook is shown, after the tool ran. */
export interface PluginToolResult extends PluginToolCall {
  output?: unknown;
  error?: string;
}

/**
 * A plugin's hooks, called around each tool call.
 *
 * @example
 * const hooks: PluginHooks = { toolCall: (call) => (call.name === "refund" ? { block: "not today" } : undefined) };
 */
export interface PluginHooks {
  /** Before a tool runs: change its input, block it with a reason the model sees, or ask a person. */
  toolCall?(call: PluginToolCall): ToolCallDecision | Promise<ToolCallDecision>;
  /** May replace the output the model sees (`{ output }`). */
  toolResult?(result: PluginToolResult): void | undefined | { output: unknown } | Promise<void | undefined | { output: unknown }>;
}

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
