export { exactMatch, type MatchScores } from "./exact-match.js";
export { meanRange, type MeanRange } from "./mean-range.js";
export type { Metric, MetricOption, Score } from "./metrics.js";
export { evaluate, type Evaluation, type EvaluateOptions, type MetricSummary, type Progress, type RowResult } from "./evaluate.js";
export { compare, type Comparison } from "./compare.js";
export type { Row } from "./rows.js";
