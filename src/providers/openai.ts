/**
 * OpenAI Chat Completions behind functai's LM contract, on the official
 * `openai` SDK. Also any OpenAI-compatible server (Ollama, vLLM, llama.cpp)
 * through `baseURL`.
 */
import type OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { ProviderError } from "../errors.js";
import { LM_SPEC, type GenerateOptions, type LanguageModel, type LMRequest, type LMResponse } from "../lm/types.js";
import { checkLMOptions, checkRequest, endpointOf, lazy, loadSdk, readEnv, refuseUnread, type SdkClient } from "./common.js";
import { drainStream, eventStream, givenWhole, idleBound, streamedText, toProviderError, wholeWithin } from "./errors.js";
import { withErrorBodiesRead } from "./error-list.js";
import { withStreamsEndedAtDone } from "./stream-end.js";
import { replyOfEventText } from "./event-text.js";
import { ChunkAccumulator, fromCompletion, isCompletion, toOpenAIMessages, toOpenAITools } from "./openai-wire.js";
import { withRetry } from "./retry.js";

/**
 * Options of `openai()`.
 *
 * @example
 * const options: OpenAIOptions = { model: "llama3.1", baseURL: "http://localhost:11434/v1", apiKey: "none" };
 */
export interface OpenAIOptions {
  /** e.g. `"gpt-4.1-mini"`. */
  model: string;
  /** Default: `OPENAI_API_KEY` from the environment (where there is one). */
  apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else the SDK's (api.openai.com). */
  baseURL?: string;
  /**
   * A ready `OpenAI` client of `openai`; the SDK is then not loaded by us. Its own
   * retries are turned off: we retry. (Typed by shape, so that functai's
   * published types do not need `openai` installed.)
   */
  client?: SdkClient;
  /** Offer tools natively (JSON Schema). Default true. */
  nativeTools?: boolean;
  /** Retries on 429, 5xx and network failures. Default 2. */
  maxRetries?: number;
  /** Default reply length limit, sent as `max_completion_tokens`; a request's `maxTokens` wins. */
  maxTokens?: number;
}

type Body = Omit<ChatCompletionCreateParamsNonStreaming, "stream">;

/** A stream's chunk that is an error, as OpenAI (and the servers copying it) sends one mid-stream: `{ error }`. */
const hasError = (chunk: unknown): boolean => typeof chunk === "object" && chunk !== null && (chunk as { error?: unknown }).error != null;

/** Said with a 404 that looks like a wrong baseURL: the mistake most made is leaving out the `/v1`. */
const BASE_URL_ADVICE = "an OpenAI-compatible server's usually ends in /v1, e.g. http://localhost:11434/v1";

/**
 * An OpenAI language model. The `openai` SDK (an optional peer dependency:
 * `npm install openai`) is imported on the first `generate`, not before, so
 * the core does not pay for it unless it is used; where it is not installed,
 * `generate` rejects with `FunctaiError("lm-missing")` naming the package.
 * Streams when `onText` is given; retries with backoff itself.
 *
 * @example
 * const lm = openai({ model: "gpt-4.1-mini" });
 * const reply = await lm.generate({ messages: [{ role: "user", content: "Hi" }], tools: [] });
 * reply.text;
 * @example
 * // Any OpenAI-compatible server:
 * const local = openai({ model: "llama3.1", baseURL: "http://127.0.0.1:11434/v1", apiKey: "ollama" });
 */
export function openai(options: OpenAIOptions): LanguageModel {
  checkLMOptions("openai", options);
  const { model, nativeTools = true, maxRetries = 2, maxTokens } = options;
  // Read when first used, so a key set after configuration is still seen.
  const apiKey = (): string | undefined => options.apiKey ?? readEnv("OPENAI_API_KEY");
  const client = lazy(async (): Promise<OpenAI> => {
    if (options.client !== undefined) return options.client.withOptions({ maxRetries: 0 }) as OpenAI;
    // Loaded before the key is looked at: a missing package is the first thing to fix.
    const { default: OpenAISDK } = await loadSdk("openai", () => import("openai"));
    const key = apiKey();
    if (key === undefined) {
      throw new ProviderError("provider-auth", "openai: no API key. Pass openai({ apiKey }) or set OPENAI_API_KEY.", { provider: "openai" });
    }
    const baseURL = options.baseURL ?? readEnv("OPENAI_BASE_URL");
    // Browsers are a supported place to run: the caller chose to hold the key there.
    return new OpenAISDK({
      apiKey: key,
      maxRetries: 0,
      dangerouslyAllowBrowser: true,
      // (errors not under `error` (Gemini's lists, vLLM's, FastAPI's, gateways'), which the SDK cannot read: see error-list.ts)
      // (and a stream's body ended at `[DONE]`, which the SDK reads past: see stream-end.ts)
      fetch: withErrorBodiesRead(withStreamsEndedAtDone()),
      ...(baseURL !== undefined ? { baseURL } : {}),
    });
  });

  const bodyFor = (request: LMRequest): Body => {
    const limit = request.maxTokens ?? maxTokens;
    return {
      model,
      messages: toOpenAIMessages(request.messages),
      ...(nativeTools && request.tools.length > 0 ? { tools: toOpenAITools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      // `max_tokens` is deprecated and refused by reasoning models; this one is read by all current models.
      ...(limit !== undefined ? { max_completion_tokens: limit } : {}),
    };
  };

  async function generate(request: LMRequest, options: GenerateOptions = {}): Promise<LMResponse> {
    checkRequest("openai", request, nativeTools);
    const { signal, onText } = options;
    const body = bodyFor(request);
    const offered = request.tools.map((t) => t.name);
    // Text already shown cannot be taken back: after it, a failure is final (text held back does not count).
    const text = streamedText(options);
    const attempt = async (): Promise<LMResponse> => {
      text.attempt();
      let endpoint: string | undefined;
      try {
        const sdk = await client();
        endpoint = endpointOf(sdk, "/chat/completions");
        if (onText === undefined) {
          const whole: unknown = await wholeWithin("openai", idleBound(sdk), signal, (bound) =>
            sdk.chat.completions.create({ ...body, stream: false }, { signal: bound }),
          );
          // A server that streams though asked not to (some local ones) answers with an event stream's text.
          return replyOfEventText("openai", whole, new ChunkAccumulator(offered), hasError) ?? fromCompletion(whole as ChatCompletion, offered);
        }
        const got = await eventStream(
          "openai",
          idleBound(sdk),
          sdk.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal }).withResponse(),
          isCompletion,
        );
        // A server that ignores `stream: true` (some local ones) answers with the whole completion.
        if ("whole" in got) return givenWhole(fromCompletion(got.whole as ChatCompletion, offered), onText, text.passedOn);
        return await drainStream("openai", got.stream, new ChunkAccumulator(offered), {
          signal,
          onText,
          passedOn: text.passedOn,
          idleMs: idleBound(sdk),
        });
      } catch (e) {
        throw toProviderError(e, { provider: "openai", signal, apiKey: apiKey(), endpoint, baseURLAdvice: BASE_URL_ADVICE });
      }
    };
    const reply = await withRetry(attempt, { maxRetries, signal, canRetry: text.canRetry });
    refuseUnread("openai", request, reply, nativeTools);
    return reply;
  }

  return { specificationVersion: LM_SPEC, provider: "openai", model, nativeTools, generate };
}
