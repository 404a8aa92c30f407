export { scripted, type ScriptedLM, type ScriptedReply } from "./scripted.js";
export { memoryStore } from "../store/memory.js";
export { faultyStore } from "./faulty-store.js";
