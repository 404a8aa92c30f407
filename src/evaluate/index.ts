export { exactMatch, type MatchScores } from "./exact-match.js";
export { meanRange, type MeanRange } from "./mean-range.js";
