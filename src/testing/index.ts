export { scripted, type ScriptedAnswer, type ScriptedLM, type ScriptedOptions, type ScriptedReply } from "./scripted.js";
export { memoryStore } from "../store/memory.js";
export { faultyStore } from "./faulty-store.js";
export { fakeClock, type FakeClock } from "./fake-clock.js";
export type { Clock, ClockTimer } from "../runtime/clock.js";
