import { platform } from "#runtime";
import type { Frame } from "./frame.js";

/**
 * The frame of the call being run, so calls made inside a program or a
 * tool's body join its turn. Node carries it across `await`
 * (AsyncLocalStorage); browsers only at a call's synchronous start, so there
 * pass `{ ctx }` to calls made after an `await`.
 */
export const frameCarrier = platform.createCarrier<Frame>();
