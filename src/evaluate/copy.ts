import { describeError, FunctaiError } from "../errors.js";
import { copyOf } from "../runtime/values.js";
import type { Row, RowShape } from "./rows.js";

/**
 * Refuses (`input-invalid`, before any model call) a row whose data a metric
 * could not be given, or compared: a column whose getter throws, or a Proxy
 * whose traps do, at any depth. A custom metric is given a copy of each
 * whole row (`columns` left out): given the user's row itself, it could
 * change it, and failed the row when it read that column, once the call was
 * paid for. The default metric compares the expected `columns`, item by item:
 * one that throws deep inside failed its row after the call too.
 */
export function checkRowsCopyable(shape: RowShape, rows: readonly Row[], columns?: readonly string[]): void {
  rows.forEach((row, i) => {
    const unreadable = (where: string, e: unknown): FunctaiError =>
      new FunctaiError(
        "input-invalid",
        `${shape.name}: ${where} could not be read (${describeError(e)}); ${columns === undefined ? "a metric is given a copy of each whole row" : "the expected outputs are compared item by item"}. Nothing was sent to the model.`,
        { cause: e },
      );
    let read: readonly string[];
    try {
      read = columns === undefined ? Object.keys(row) : columns.filter((c) => Object.hasOwn(row, c));
    } catch (e) {
      throw unreadable(`row ${i + 1}'s columns`, e);
    }
    for (const c of read) {
      try {
        copyOf(row[c]);
      } catch (e) {
        throw unreadable(`row ${i + 1}'s column ${c}`, e);
      }
    }
  });
}
