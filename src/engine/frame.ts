import type { Settings } from "../settings.js";
import type { Step, TurnRuntime } from "./runtime.js";

/**
 * One call in a turn's tree (an AI function, a program, or a tool's body).
 * `site` names its place by names and occurrence (`support#1/answer#2`);
 * `path` by names only (`support/answer`), as approval rules see it.
 */
export interface Frame {
  readonly runtime: TurnRuntime;
  readonly name: string;
  readonly site: string;
  readonly path: string;
  readonly settings: Settings;
  /** The last tool invocation number given out (AI functions number their tool calls 1, 2, … across steps). */
  invocations: number;
  /** How many direct calls of each name this frame made (programs and tool bodies); made at the first. */
  children?: Map<string, number>;
  /** The turn's outermost call. */
  readonly root?: boolean;
  /**
   * Where the model calls made in this frame and the frames below it are also kept (each request with the history
   * so far, replayed or not): a bootstrapFewShot run in a turn records its run as `predict` does.
   */
  readonly steps?: Step[];
}

export function rootFrame(runtime: TurnRuntime, name: string, settings: Settings): Frame {
  return { runtime, name, site: `${name}#1`, path: name, settings, invocations: 0, root: true };
}

/** The turn's `started` event, from its outermost call (a replayed run does not show it again). */
export function announceStart(frame: Frame, input: Record<string, unknown>): void {
  const { runtime } = frame;
  if (!frame.root || runtime.journal.replaying) return;
  const conversation = runtime.conversation ? { conversation: runtime.conversation.id } : {};
  runtime.emit(frame.path, { type: "started", name: frame.name, input, ...conversation }, "started");
}

/**
 * A call made inside `parent`. A call run as a tool carries the invocation
 * of the tool call it runs under; a direct call counts its occurrences by name.
 */
export function childFrame(parent: Frame, name: string, settings: Settings, invocation?: number): Frame {
  let occurrence = invocation;
  if (occurrence === undefined) {
    const children = (parent.children ??= new Map());
    occurrence = (children.get(name) ?? 0) + 1;
    children.set(name, occurrence);
  }
  return {
    runtime: parent.runtime,
    name,
    site: `${parent.site}/${name}#${occurrence}`,
    path: `${parent.path}/${name}`,
    settings,
    invocations: 0,
    ...(parent.steps !== undefined && { steps: parent.steps }),
  };
}

/** The same place in the tree, with other settings (a composite tool's own layers): both count their calls in one map. */
export const reframe = (frame: Frame, settings: Settings): Frame => ({ ...frame, settings, children: (frame.children ??= new Map()) });
