import type { ListToolsResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { FunctaiError } from "../../src/errors.js";
import { isRecord } from "../../src/runtime/values.js";
import { unreadable, withoutNulls } from "./result.js";
import { fromSdk } from "./validate.js";

type ToolInfo = z.infer<typeof ToolSchema>;

/** The fields of a listed tool MCP lets a server leave out: `null` in one says the same. */
const OPTIONAL_TOOL_KEYS = ["title", "description", "icons", "outputSchema", "annotations", "execution", "_meta"] as const;

/**
 * One tools/list answer with `null` read as "left out" where MCP lets a field
 * be left out: a page's `nextCursor` (the last page), a tool's optional
 * fields, and each of its annotations (hints). Servers of other makes write
 * `null` for a field of their own type left empty ("nextCursor": null), and
 * the SDK's schema takes a string or nothing: its `listTools` refused the
 * whole listing. A value of any other wrong type, or a tool's missing or
 * `null` input schema, still cannot be read (see {@link ListingReader}).
 */
function nullsLeftOut(page: unknown): unknown {
  if (!isRecord(page)) return page;
  const read = withoutNulls(page, ["nextCursor"]);
  if (!Array.isArray(read.tools)) return read;
  read.tools = read.tools.map((tool: unknown) => {
    if (!isRecord(tool)) return tool;
    const kept = withoutNulls(tool, OPTIONAL_TOOL_KEYS);
    if (isRecord(kept.annotations)) kept.annotations = withoutNulls(kept.annotations);
    return kept;
  });
  return read;
}

/** One page of a listing as {@link ListingReader} reads it: the tools the SDK's schema reads, and what is wrong with the others. */
export interface ListedPage {
  tools: ToolInfo[];
  nextCursor?: string | undefined;
  /** By tool (of `tools`, as the server listed it): where it breaks MCP's schema of a tool, in a line. */
  unreadable: Map<ToolInfo, string>;
}

/**
 * What mcpTools reads a tools/list answer with: `schema` (the SDK's own, after {@link nullsLeftOut}, its tools
 * left to `page`), and `page`, which reads each tool with the SDK's schema of a tool. One tool it cannot read
 * (an input schema with no `type`, as the SDK's own McpServer lists a tool whose zod schema is refined) failed
 * the whole listing, and `include` could not leave it out: it is kept, with what is wrong with it, for
 * mcpTools to refuse if taken. A tool with no name cannot be left out: the listing is refused.
 */
export interface ListingReader {
  schema: typeof ListToolsResultSchema;
  page(answer: { tools: readonly unknown[]; nextCursor?: string | undefined }): ListedPage;
}

/**
 * Loads the {@link ListingReader} (the SDK's schemas), once per mcpTools call.
 *
 * @example
 * const reader = await loadListingReader();
 * const { tools, unreadable } = reader.page(await client.request({ method: "tools/list", params: {} }, reader.schema));
 */
export async function loadListingReader(): Promise<ListingReader> {
  const sdk = await fromSdk(() => import("@modelcontextprotocol/sdk/types.js"));
  const pageSchema = sdk.ListToolsResultSchema.extend({ tools: z.array(z.unknown()) });
  // it parses to what the SDK's schema does, save its tools, which `page` reads
  const schema = z.preprocess(nullsLeftOut, pageSchema) as unknown as typeof ListToolsResultSchema;
  const page: ListingReader["page"] = (answer) => {
    const read: ListedPage = { tools: [], nextCursor: answer.nextCursor, unreadable: new Map() };
    answer.tools.forEach((tool, index) => {
      const parsed = sdk.ToolSchema.safeParse(tool);
      // said by its path in the page, as the SDK's schema of the page says it
      const problem = () => unreadable({ issues: parsed.error!.issues.map((i) => ({ ...i, path: ["tools", index, ...i.path] })) });
      // an input named __proto__ is dropped by the SDK's reading (it sets the prototype of the object it
      // builds): the schema is kept as listed, for mcpTools to refuse the name, not to offer a tool without it
      if (parsed.success && isRecord(tool) && isRecord(tool.inputSchema) && isRecord(tool.inputSchema.properties))
        if (Object.hasOwn(tool.inputSchema.properties, "__proto__")) parsed.data.inputSchema = tool.inputSchema as ToolInfo["inputSchema"];
      if (parsed.success) return void read.tools.push(parsed.data);
      if (!isRecord(tool) || typeof tool.name !== "string")
        throw new FunctaiError("remote-protocol", `the MCP server's tools could not be listed: ${problem()}`, { cause: parsed.error });
      read.tools.push(tool as ToolInfo);
      read.unreadable.set(tool as ToolInfo, `${problem()} (the tool ${JSON.stringify(tool.name)})`);
    });
    return read;
  };
  return { schema, page };
}
