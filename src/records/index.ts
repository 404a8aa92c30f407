export type * from "./types.js";
export { FORMAT } from "./types.js";
export { parseRecord, checkNewRecord, recordSchemas, newRecordSchemas, KNOWN_KINDS } from "./schema.js";
export type { ParsedRecord, KnownKind } from "./schema.js";
export { ConversationReader, readConversation } from "./read-conversation.js";
export type { ConversationState, TurnInfo, NextTurn } from "./read-conversation.js";
