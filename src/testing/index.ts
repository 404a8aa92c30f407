export { scripted, type ScriptedAnswer, type ScriptedLM, type ScriptedOptions, type ScriptedReply } from "./scripted.js";
export { memoryStore } from "../store/memory.js";
export { faultyStore } from "./faulty-store.js";
