/**
 * `functai/machine`: the XState v5 machine every turn runs as. Its own entry
 * point, so that the main entry's types never load xstate's (which do not
 * compile under `exactOptionalPropertyTypes` with `skipLibCheck: false`).
 *
 * @example
 * import { createActor } from "xstate";
 * import { turnMachine } from "functai/machine";
 * turnMachine.id;   // "turn"
 */
export { turnMachine, type TurnContext, type TurnInput, type TurnCommand, type MachineAnswer } from "./turn/machine.js";
