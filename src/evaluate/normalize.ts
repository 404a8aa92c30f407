import { caseFold } from "unicode-case-folding";

/**
 * How `exactMatch` reads text: split on white space, joined with one space,
 * then full Unicode case folding (`ß` is `ss`, a final `ς` is `σ`).
 */

/**
 * White space as the contract names it: U+0009–000D, U+001C–001F, U+0020,
 * U+0085, U+00A0, U+1680, U+2000–200A, U+2028, U+2029, U+202F, U+205F,
 * U+3000. Not JavaScript's `\s`, which also holds U+FEFF.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the contract's white space holds control characters (U+0009–000D, U+001C–001F)
export const WHITE_SPACE = /[\u0009-\u000D\u001C-\u001F\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/u;

/** Runs of white space become one space, none at either end. */
export const collapseWhiteSpace = (text: string): string =>
  text
    .split(WHITE_SPACE)
    .filter((part) => part !== "")
    .join(" ");

/** The text `exactMatch` compares: white space collapsed, then case folded (CaseFolding.txt, statuses C and F). */
export const normalizeText = (text: string): string => caseFold(collapseWhiteSpace(text));
