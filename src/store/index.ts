export type { Store } from "./types.js";
export { CONVERSATION_ID, isConversationId } from "./types.js";
export { memoryStore } from "./memory.js";
