export type { AIState, Demo, DemoStep } from "./demo.js";
export { labeledFewShot, type LabeledOptions } from "./labeled.js";
export { bootstrapFewShot, type BootstrapOptions } from "./bootstrap.js";
