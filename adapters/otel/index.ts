/**
 * `functai/otel`: OpenTelemetry spans for turns, model calls and tool calls,
 * with the GenAI semantic conventions. Needs `@opentelemetry/api` (an
 * optional peer dependency) and a tracer provider of your choice.
 *
 * @example
 * import { configure } from "functai";
 * import { otel } from "functai/otel";
 * configure({ plugins: [otel()] });
 */
export { otel, type OtelOptions } from "./plugin.js";
export { GEN_AI, FUNCTAI } from "./attributes.js";
