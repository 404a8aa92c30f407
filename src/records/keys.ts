/**
 * The identity keys of a conversation's records: one rule each, so the
 * engine's journal, the reader and the handles never disagree on which
 * record names which call.
 *
 * - A tool call is named by its site and invocation.
 * - An approval by its call's site and invocation, and the plugin that
 *   asked. The built-in approval is written with `plugin` absent, `null`,
 *   `""` or `"approval"` (format 1): all four are the same question. Any
 *   other name, `"approve"` included, is a plugin of that name (a plugin may
 *   be called "approve"; an alias would let its answer pass for the
 *   built-in approval's).
 */
import type { ToolRecord } from "./types.js";

/** A record's plugin name: `undefined` for the built-in approval. */
export const pluginOf = (plugin: unknown): string | undefined =>
  typeof plugin === "string" && plugin !== "" && plugin !== "approval" ? plugin : undefined;

/**
 * An approval's id: its call's site and invocation, and the plugin that
 * asked (none for the built-in approval). The `id` of an `Approval`.
 *
 * @example
 * approvalKey("desk#1", 2);             // "desk#1:2"
 * approvalKey("desk#1", 2, "approval"); // "desk#1:2" (the built-in approval)
 * approvalKey("desk#1", 2, "vip");      // "desk#1:2:vip"
 */
export const approvalKey = (site: string, invocation: number, plugin?: string | null): string => {
  const p = pluginOf(plugin);
  const at = `${siteKey(site)}:${invocation}`;
  return p === undefined ? at : `${at}:${p}`;
};

/**
 * A site as the first part of a key: its `:` (and `%`) escaped, so the key's first `:` ends the site and two
 * different (site, invocation, plugin) never make one key (site "a:1", invocation 2 and site "a", invocation 1,
 * plugin "2" both made "a:1:2": a record of another place answered a question it never named). Our sites hold
 * neither (names are letters, digits, `_` and `-`): their keys are unchanged.
 */
const siteKey = (site: string): string =>
  site.includes(":") || site.includes("%") ? site.replace(/[%:]/g, (c) => (c === "%" ? "%25" : "%3A")) : site;

/**
 * A tool call's key: its site and invocation.
 *
 * @example
 * toolKey("desk#1", 3); // "desk#1:3"
 */
export const toolKey = (site: string, invocation: number): string => `${site}:${invocation}`;

/**
 * The path of the call that made a call at `path` (its parent in the call
 * tree); a top-level path is its own caller.
 *
 * @example
 * callerPath("desk/refund"); // "desk"
 */
export const callerPath = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/"))) || path;

/**
 * A changing tool that started and may have run: a person says whether it did.
 *
 * @example
 * const [turn] = await chat.turns();
 * const unfinished: UnfinishedTool[] = turn?.unfinished ?? [];
 * for (const tool of unfinished) console.log(tool.invocation, tool.name, tool.input);
 * await turn?.resume({ rerun: turn.unfinished.map((t) => t.invocation) }); // a person checked: run them again
 */
export interface UnfinishedTool {
  invocation: number;
  name: string;
  input: unknown;
  path: string;
  site: string;
}

/** A turn's unfinished tools (its `tool` records whose last state is `started`), as people see them. */
export const unfinishedOf = (info: { unfinished: readonly ToolRecord[] }): UnfinishedTool[] =>
  info.unfinished.map((t) => ({ invocation: t.invocation, name: t.name, input: t.input ?? null, path: t.path ?? t.name, site: t.site }));
