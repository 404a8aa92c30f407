/** mcpTools' options checked, the tools they take, and each taken tool's name and input schema checked as providers take them. */
import { FunctaiError, describeError, describeValue } from "../../src/errors.js";
import { isRecord, namedKeys, unknownKeys } from "../../src/runtime/values.js";
import { INPUT_NAME } from "../../src/tools/name.js";
import { checkEffects, checkName } from "../../src/tools/tool.js";
import { MAX_TIMEOUT } from "./request.js";
import type { McpToolInfo, McpToolsOptions } from "./types.js";

/** What mcpTools options hold: anything else is read by nothing. */
const OPTION_KEYS = ["include", "effects", "timeout"] as const;

/**
 * Options of the wrong type, refused before the server is asked (an `include` of one string was matched as a
 * substring of it), and options it does not know (a misspelt `include` took every tool).
 */
export function checkOptions(options: unknown): asserts options is McpToolsOptions {
  if (!isRecord(options))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools options must be an object { include?, effects?, timeout? }, not ${describeValue(options, 80)}`,
    );
  const odd = unknownKeys(
    Object.keys(options).filter((k) => options[k] !== undefined),
    OPTION_KEYS,
  );
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools: ${namedKeys(odd, "is not an option", "are not options")}; its options are ${OPTION_KEYS.join(", ")}`,
    );
  const { include, effects, timeout } = options;
  if (timeout !== undefined && !(typeof timeout === "number" && Number.isInteger(timeout) && timeout >= 1 && timeout <= MAX_TIMEOUT))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools timeout must be a whole number of ms from 1 to ${MAX_TIMEOUT.toLocaleString("en-US")}, not ${describeValue(timeout, 80)}`,
    );
  if (include !== undefined && typeof include !== "function" && !(Array.isArray(include) && include.every((n) => typeof n === "string")))
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools include must be a list of tool names or a test of each tool, not ${describeValue(include, 80)}`,
    );
  if (effects !== undefined && !isRecord(effects))
    throw new FunctaiError("settings-invalid", `mcpTools effects must be an object of effects by tool name, not ${describeValue(effects, 80)}`);
  // named by its tool: among the effects of many tools, the one misspelt is found by it
  for (const [name, e] of Object.entries(effects ?? {})) checkEffects(e, `mcpTools effects of the tool ${JSON.stringify(name)}`);
}

/**
 * What the caller's `include` test says of one tool. A test written `async`
 * answers with a promise, which is truthy: it would take every tool, those it
 * leaves out included, so it is refused.
 */
function included(include: (tool: McpToolInfo) => boolean, t: McpToolInfo): boolean {
  let answer: unknown;
  try {
    answer = include(t);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `mcpTools include failed on the tool ${JSON.stringify(t.name)}: ${describeError(e)}`, {
      cause: e,
    });
  }
  if (typeof (answer as { then?: unknown } | null)?.then === "function") {
    // its rejection, if it rejects, is this refusal's to tell, not an unhandled one
    Promise.resolve(answer).catch(() => {});
    throw new FunctaiError(
      "settings-invalid",
      `mcpTools include answered a promise for the tool ${JSON.stringify(t.name)}: it must answer at once, true or false (look up what it needs before calling mcpTools)`,
    );
  }
  return Boolean(answer);
}

export function chosen(all: readonly McpToolInfo[], options: McpToolsOptions): McpToolInfo[] {
  const { include, effects = {} } = options;
  const listed = new Map<string, number>();
  for (const t of all) listed.set(t.name, (listed.get(t.name) ?? 0) + 1);
  const names = new Set(listed.keys());
  const named = [...(Array.isArray(include) ? include : []), ...Object.keys(effects)];
  const missing = named.filter((n) => !names.has(n));
  if (missing.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP server has no tool named ${missing.map((n) => JSON.stringify(n)).join(", ")} (it has: ${[...names].join(", ") || "none"})`,
    );
  const takes = (t: McpToolInfo) => (typeof include === "function" ? included(include, t) : include === undefined || include.includes(t.name));
  const taken = all.filter(takes);
  // two tools of one name: the model could not tell them apart, and only one of them would ever be called
  for (const t of taken)
    if (listed.get(t.name)! > 1)
      throw new FunctaiError(
        "remote-protocol",
        `the MCP server lists two tools named ${JSON.stringify(t.name)}; leave them out with mcpTools(client, { include })`,
      );
  return taken;
}

/**
 * Keywords providers refuse at the top of a tool's input schema, whatever it
 * says: Anthropic "oneOf, allOf, or anyOf", OpenAI those and "enum" and
 * "not" (a server's "at least one of these inputs" is often a top-level
 * `anyOf` of `required` lists).
 */
const TOP_LEVEL_REFUSED = ["oneOf", "anyOf", "allOf", "enum", "not"] as const;

/** What a refusal of one tool of the server's says to do: the rest of its tools are still usable. */
export const LEAVE_OUT = "leave it out with mcpTools(client, { include })";

/**
 * The tool's name and input schema, when a provider takes them: MCP allows
 * names ("orders.refund"), input names ("order id") and schemas that
 * providers refuse, and a request offering such a tool is refused whole (a
 * 400 at every step). So it is refused here, saying how to leave it out:
 * the rest of the server's tools are still usable.
 */
export function offerable(info: McpToolInfo): { name: string; parameters: Record<string, unknown> } {
  let name: string;
  try {
    name = checkName("MCP tool", info.name);
  } catch (e) {
    throw new FunctaiError("settings-invalid", `${(e as Error).message}, as providers require; ${LEAVE_OUT}`, { cause: e });
  }
  const parameters: unknown = info.inputSchema;
  if (!isRecord(parameters) || parameters.type !== "object")
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input schema that is not an object schema ({ type: "object", … }), which providers require; ${LEAVE_OUT}`,
    );
  // (a plain tools/call of it is refused by the server, or by the SDK's client for the last page listed only)
  if (info.execution?.taskSupport === "required")
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} runs only as a task (execution.taskSupport: "required"), and functai calls tools with tools/call; ${LEAVE_OUT}`,
    );
  const combined = TOP_LEVEL_REFUSED.filter((keyword) => Object.hasOwn(parameters, keyword));
  if (combined.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input schema with ${combined.join(", ")} at its top level, which providers refuse (only inside its properties); ${LEAVE_OUT}`,
    );
  const properties = isRecord(parameters.properties) ? Object.keys(parameters.properties) : [];
  if (properties.includes("__proto__"))
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an input named "__proto__", which a JavaScript object cannot keep as an input (reading it sets the object's prototype: the server would be sent an input without it); ${LEAVE_OUT}`,
    );
  const refused = properties.filter((key) => !INPUT_NAME.test(key));
  if (refused.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has inputs named ${refused.map((k) => JSON.stringify(k)).join(", ")}: providers refuse input names other than 1–64 letters, digits, _, . or -; ${LEAVE_OUT}`,
    );
  return { name, parameters };
}
