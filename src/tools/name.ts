/** What every name a model or a rule sees is: a tool's, an AI function's, a program's, a delegate's (a module of its own: settings.ts checks approval rules by it, and tool.ts depends on settings through the frame). */
export const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** What an input's name may be: a tool's input is a property of the JSON Schema a provider is sent, and Anthropic refuses any other key (a 400 for the whole request). */
export const INPUT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
