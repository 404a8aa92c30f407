/**
 * A string `lm` setting → a language model: `"openai:<model>"`,
 * `"anthropic:<model>"`, or a bare model name whose maker is plain from it.
 */
import { FunctaiError } from "../errors.js";
import { isLanguageModel, type LanguageModel } from "../lm/types.js";
import { anthropic } from "./anthropic.js";
import { openai } from "./openai.js";

const OPENAI_PREFIXES = ["gpt-", "o1", "o3", "o4", "chatgpt-"];
const ANTHROPIC_PREFIXES = ["claude-"];

// One LM per string, so its lazily built SDK client is shared by every call that names it.
const cache = new Map<string, LanguageModel>();

function build(spec: string): LanguageModel {
  const colon = spec.indexOf(":");
  if (colon > 0) {
    const provider = spec.slice(0, colon);
    const model = spec.slice(colon + 1).trim();
    const named = provider.trim().toLowerCase();
    if (named === "openai" || named === "anthropic") {
      if (model !== "" && provider === named) return named === "openai" ? openai({ model }) : anthropic({ model });
      // Advice that works: the suggestion below would repeat the prefix ("openai:openai:") or keep its misspelling.
      const why = model === "" ? `It names no model after "${named}:".` : `Write it "${named}:${model}".`;
      throw new FunctaiError("lm-unknown", `Unknown language model "${spec}". ${why}`);
    }
  } else {
    if (OPENAI_PREFIXES.some((p) => spec.startsWith(p))) return openai({ model: spec });
    if (ANTHROPIC_PREFIXES.some((p) => spec.startsWith(p))) return anthropic({ model: spec });
  }
  throw new FunctaiError(
    "lm-unknown",
    `Unknown language model "${spec}". Name its provider with a prefix: "openai:${spec}" or "anthropic:${spec}" ` +
      "(or pass an LM object, e.g. openai({ model, baseURL }) for an OpenAI-compatible server).",
  );
}

/**
 * The language model a setting names. An LM object is returned as it is; a
 * string is resolved once and the same LM is returned for it afterwards.
 * Throws `FunctaiError("lm-unknown")` for a name it cannot place.
 *
 * @example
 * resolveLM("gpt-4.1-mini").provider;               // "openai"
 * resolveLM("claude-haiku-4-5").provider;           // "anthropic"
 * resolveLM("openai:llama3.1");                     // explicit: any model name
 */
export function resolveLM(spec: string | LanguageModel): LanguageModel {
  if (typeof spec !== "string") {
    if (isLanguageModel(spec)) return spec;
    throw new FunctaiError("lm-unknown", "lm must be a model name (e.g. \"gpt-4.1-mini\") or a language model object.");
  }
  const key = spec.trim();
  let lm = cache.get(key);
  if (lm === undefined) {
    lm = build(key);
    cache.set(key, lm);
  }
  return lm;
}
