/** The real providers behind functai's LM contract, and the resolver for string `lm` settings. */
export { openai, type OpenAIOptions } from "./openai.js";
export { anthropic, type AnthropicOptions } from "./anthropic.js";
export { resolveLM } from "./resolve.js";
