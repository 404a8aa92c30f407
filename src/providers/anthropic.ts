/**
 * Anthropic Messages behind functai's LM contract, on `@anthropic-ai/sdk`.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Message as AnthropicMessage, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { ProviderError } from "../errors.js";
import { LM_SPEC, type GenerateOptions, type LanguageModel, type LMRequest, type LMResponse } from "../lm/types.js";
import { checkLMOptions, checkRequest, endpointOf, lazy, loadSdk, readEnv, refuseUnread, type SdkClient } from "./common.js";
import { EventAccumulator, fromMessage, isMessage, toAnthropicMessages, toAnthropicTools } from "./anthropic-wire.js";
import { drainStream, eventStream, givenWhole, idleBound, streamedText, toProviderError, wholeWithin } from "./errors.js";
import { withEventsNamed } from "./event-names.js";
import { replyOfEventText } from "./event-text.js";
import { withRetry } from "./retry.js";

/**
 * Options of `anthropic()`.
 *
 * @example
 * const options: AnthropicOptions = { model: "claude-haiku-4-5", maxTokens: 1024 };
 */
export interface AnthropicOptions {
  /** e.g. `"claude-haiku-4-5"`. */
  model: string;
  /** Default: `ANTHROPIC_API_KEY` from the environment (else the SDK's own credential lookup). */
  apiKey?: string;
  /** Default: the SDK's (`ANTHROPIC_BASE_URL`, else api.anthropic.com). */
  baseURL?: string;
  /**
   * A ready `Anthropic` client of `@anthropic-ai/sdk`; the SDK is then not loaded by us. Its own
   * retries are turned off: we retry. (Typed by shape, so that functai's
   * published types do not need `@anthropic-ai/sdk` installed.)
   */
  client?: SdkClient;
  /** Offer tools natively (JSON Schema). Default true. */
  nativeTools?: boolean;
  /** Retries on 429, 529, 5xx and network failures. Default 2. */
  maxRetries?: number;
  /** Reply length limit (Anthropic requires one); a request's `maxTokens` wins. Default 4096. */
  maxTokens?: number;
}

type Body = Omit<MessageCreateParamsNonStreaming, "stream">;

/** An `error` event, as Anthropic sends one mid-stream: `{ type: "error", error: { type, message } }`. */
const isErrorEvent = (event: unknown): boolean => typeof event === "object" && event !== null && (event as { type?: unknown }).type === "error";

/** Said with a 404 that looks like a wrong baseURL: the SDK adds `/v1/messages` itself, so a base ending in `/v1` doubles it. */
const BASE_URL_ADVICE = "Anthropic's is the server's root, without /v1: the SDK adds /v1/messages";

/**
 * The SDK found no credentials (no key, token, profile or config) and says
 * so with a plain Error before any request. We leave finding them to the
 * SDK (it knows more places than the environment), so its refusal is read
 * afterwards: by its words, as it has no class or code of its own.
 */
const noCredentials = (e: unknown): boolean =>
  e instanceof Error && !("status" in e) && e.message.startsWith("Could not resolve authentication method");

/**
 * The SDK refuses non-streamed requests that may outlast its 10-minute timeout
 * (8192 tokens for some models): past this, we stream even with no `onText`.
 */
const NON_STREAMING_MAX_TOKENS = 8192;

/**
 * An Anthropic language model. `@anthropic-ai/sdk` (an optional peer
 * dependency: `npm install @anthropic-ai/sdk`) is imported on the first
 * `generate`, not before; where it is not installed, `generate` rejects with
 * `FunctaiError("lm-missing")` naming the package. Streams when `onText` is given; retries with
 * backoff itself (429, 529 overloaded, 5xx, network).
 *
 * @example
 * const lm = anthropic({ model: "claude-haiku-4-5" });
 * const reply = await lm.generate(
 *   { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], tools: [] },
 *   { onText: (delta) => process.stdout.write(delta) },
 * );
 */
export function anthropic(options: AnthropicOptions): LanguageModel {
  checkLMOptions("anthropic", options);
  const { model, nativeTools = true, maxRetries = 2, maxTokens = 4096 } = options;
  const apiKey = (): string | undefined => options.apiKey ?? readEnv("ANTHROPIC_API_KEY");
  const client = lazy(async (): Promise<Anthropic> => {
    if (options.client !== undefined) return options.client.withOptions({ maxRetries: 0 }) as Anthropic;
    const key = apiKey();
    const { default: AnthropicSDK } = await loadSdk("@anthropic-ai/sdk", () => import("@anthropic-ai/sdk"));
    return new AnthropicSDK({
      maxRetries: 0,
      // Browsers are a supported place to run: the caller chose to hold the key there.
      dangerouslyAllowBrowser: true,
      // (a gateway's events without `event:` lines, which the SDK drops: see event-names.ts)
      fetch: withEventsNamed(),
      ...(key !== undefined ? { apiKey: key } : {}),
      ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    });
  });

  const bodyFor = (request: LMRequest): Body => {
    const { system, messages } = toAnthropicMessages(request.messages);
    return {
      model,
      max_tokens: request.maxTokens ?? maxTokens,
      messages,
      ...(system !== undefined ? { system } : {}),
      ...(nativeTools && request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
  };

  async function generate(request: LMRequest, options: GenerateOptions = {}): Promise<LMResponse> {
    checkRequest("anthropic", request, nativeTools);
    const { signal, onText } = options;
    const body = bodyFor(request);
    const stream = onText !== undefined || body.max_tokens > NON_STREAMING_MAX_TOKENS;
    // Text already shown cannot be taken back: after it, a failure is final (text held back does not count).
    const text = streamedText(options);
    const attempt = async (): Promise<LMResponse> => {
      text.attempt();
      let endpoint: string | undefined;
      try {
        const sdk = await client();
        endpoint = endpointOf(sdk, "/v1/messages");
        if (!stream) {
          const whole: unknown = await wholeWithin("anthropic", idleBound(sdk), signal, (bound) =>
            sdk.messages.create({ ...body, stream: false }, { signal: bound }),
          );
          // A compatible server that streams though asked not to answers with an event stream's text.
          return replyOfEventText("anthropic", whole, new EventAccumulator(), isErrorEvent) ?? fromMessage(whole as AnthropicMessage);
        }
        const got = await eventStream(
          "anthropic",
          idleBound(sdk),
          sdk.messages.create({ ...body, stream: true }, { signal }).withResponse(),
          isMessage,
        );
        // A compatible server or proxy that does not stream answers with the whole message.
        if ("whole" in got) return givenWhole(fromMessage(got.whole as AnthropicMessage), onText, text.passedOn);
        // `ping` is skipped and an `error` event thrown (as an APIError) by the SDK.
        return await drainStream("anthropic", got.stream, new EventAccumulator(), {
          signal,
          onText,
          passedOn: text.passedOn,
          idleMs: idleBound(sdk),
        });
      } catch (e) {
        if (noCredentials(e)) {
          const message = "anthropic: no API key. Pass anthropic({ apiKey }) or set ANTHROPIC_API_KEY.";
          throw new ProviderError("provider-auth", message, { provider: "anthropic", cause: e });
        }
        throw toProviderError(e, { provider: "anthropic", signal, apiKey: apiKey(), endpoint, baseURLAdvice: BASE_URL_ADVICE });
      }
    };
    const reply = await withRetry(attempt, { maxRetries, signal, canRetry: text.canRetry });
    refuseUnread("anthropic", request, reply, nativeTools);
    return reply;
  }

  return { specificationVersion: LM_SPEC, provider: "anthropic", model, nativeTools, generate };
}
