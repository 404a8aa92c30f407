/**
 * zod schemas of conversation records, format 1 (DESIGN.md, "The journal").
 *
 * Every schema is loose: keys this version does not know are kept and
 * ignored, so records written by a later version or another implementation
 * (FunctAI Python writes `lmcc`, `saw`, `module`, …) still read.
 *
 * Readers call {@link parseRecord}: a kind or format they do not know is
 * skipped, a known kind that fails its schema is an error (skipped and
 * reported, never misread). Writers call {@link checkNewRecord} on what they
 * are about to append: a failure there is a bug in this package.
 *
 * Format history: 1 — the only format (FunctAI conversation format 1).
 */
import { z } from "zod";
import { FORMAT, type KnownRecord, type NewRecord } from "./types.js";
import { describeValue } from "../errors.js";
import { issuesText } from "../schema-read.js";

const text = z.string();
const id = z.string().min(1);
const count = z.int().positive();
const effects = z.enum(["reads", "changes"]).nullable();
/** A turn's approval rule as its record keeps it: an approve function is kept as `"function"` (a person answers instead). */
const approveRule = z.union([z.enum(["changes", "all", "function"]), z.array(z.string())]);

/** Keys every record has; `seq` is given by the store. */
const base = {
  functai_conversation: z.literal(FORMAT),
  at: text,
  seq: count,
};

const approvalAsked = z.looseObject({
  site: text,
  invocation: count,
  path: text,
  name: text,
  input: z.unknown().optional(),
  effects: effects.optional(),
  id: text.optional(),
  plugin: text.nullable().optional(),
  question: text.optional(),
});

const shapes = {
  program: {
    version: id,
    name: text,
    program_kind: text.optional(),
    interface: z.unknown().optional(),
  },
  turn: {
    turn: id,
    parent: id.nullable(),
    program: text,
    inputs: z.record(z.string(), z.unknown()),
    request_id: text.optional(),
    caller: z.union([z.looseObject({ evaluation: id }), z.looseObject({ optimization: id })]).optional(),
    // ours: the rule the turn was sent with, asked again by whoever resumes it. One that cannot be read is
    // damage, never "no rule" (a resumed turn would run changing tools nobody approved).
    approve: approveRule.nullable().optional(),
  },
  lease: {
    turn: id,
    holder: text,
    // A lease's end decides running vs interrupted: it must be a real instant.
    until: z.iso.datetime({ offset: true }),
    attempt: count,
  },
  reply: {
    turn: id,
    key: text,
    site: text.optional(),
    response: z.unknown(),
    attempt: count.optional(),
  },
  tool: {
    turn: id,
    site: text,
    invocation: count,
    id: text.optional(),
    name: text,
    state: z.enum(["started", "done", "given", "rerun"]),
    input: z.unknown().optional(),
    effects: effects.optional(),
    output: z.unknown().optional(),
    error: text.optional(),
    shown: z.array(z.unknown()).optional(),
    path: text.optional(),
    attempt: count.optional(),
  },
  waiting: {
    turn: id,
    approvals: z.array(approvalAsked),
    attempt: count.optional(),
  },
  approval: {
    turn: id,
    site: text,
    invocation: count,
    plugin: text.nullable().optional(),
    path: text,
    verdict: z.enum(["yes", "no"]),
    by: text.nullable(),
    reason: text.nullable(),
  },
  ended: {
    turn: id,
    state: z.enum(["done", "failed", "stopped", "abandoned"]),
    outputs: z.record(z.string(), z.unknown()).optional(),
    value: z.unknown().optional(),
    error: z.unknown().optional(),
    usage: z.looseObject({ input_tokens: z.number().nonnegative(), output_tokens: z.number().nonnegative() }).optional(),
    attempt: count.optional(),
  },
  stop: { turn: id },
  head: { turn: id },
  snapshot: { turn: id, snapshot: z.unknown() },
  plugin: { turn: id, plugin: z.string().min(1), data: z.unknown(), attempt: count.optional() },
} as const satisfies Record<KnownRecord["kind"], z.ZodRawShape>;

/** The record kinds this version knows. */
export type KnownKind = KnownRecord["kind"];

/**
 * A `done` end's answer is its `value`. A turn whose answer is undefined is written with `outputs: { result: undefined }`
 * and `value: undefined`, which a store keeps as `outputs: {}` and no `value` (JSON leaves undefined out): a `value`
 * missing is that answer only when `outputs` holds none either. A `value` lost while `outputs` still holds an answer,
 * or lost with `outputs`, is damage: refused, never read as an answer of undefined.
 */
const answerKept = (r: Record<string, unknown>): boolean =>
  r.state !== "done" || r.value !== undefined || (typeof r.outputs === "object" && r.outputs !== null && Object.values(r.outputs).every((v) => v === undefined));

const ANSWER_LOST = { path: ["value"], message: "a done turn's answer is missing (its outputs hold one, or are missing too)" };

const shape = <K extends KnownKind>(kind: K) => z.looseObject({ ...base, kind: z.literal(kind), ...shapes[kind] });
/** The rules across keys of a kind (on top of its shape). */
const across = <S extends z.ZodType<Record<string, unknown>>>(kind: KnownKind, schema: S): S => (kind === "ended" ? schema.refine(answerKept, ANSWER_LOST) : schema);
const stored = <K extends KnownKind>(kind: K) => across(kind, shape(kind));
const fresh = <K extends KnownKind>(kind: K) => across(kind, shape(kind).omit({ seq: true }));

type Stored = { [K in KnownKind]: ReturnType<typeof stored<K>> };
type Fresh = { [K in KnownKind]: ReturnType<typeof fresh<K>> };

const perKind = <T>(make: (kind: KnownKind) => unknown): T =>
  Object.fromEntries((Object.keys(shapes) as KnownKind[]).map((kind) => [kind, make(kind)])) as T;

/** A schema per kind, for records as a store holds them (with `seq`). */
export const recordSchemas: Stored = perKind<Stored>(stored);

/** A schema per kind, for records about to be appended (without `seq`: the store gives it). */
export const newRecordSchemas: Fresh = perKind<Fresh>(fresh);

/** The kinds this version knows, in the order of DESIGN.md's table. */
export const KNOWN_KINDS: readonly KnownKind[] = Object.freeze(Object.keys(shapes) as KnownKind[]);

const isKnownKind = (kind: string): kind is KnownKind => Object.hasOwn(shapes, kind);

const isObject = (raw: unknown): raw is Record<string, unknown> =>
  typeof raw === "object" && raw !== null && !Array.isArray(raw);

const describe = (kind: string, error: z.ZodError): string =>
  `${kind} record: ${issuesText(error, "(record)")}`;

/**
 * Whether a record is of a later format than this one: a format this version does not know, skipped by every
 * reader as a kind it does not know is. Only a whole number past this one is a format at all: 0, -1 or 1.5 is
 * damage (skipped quietly, a damaged `ended` record would read as a turn that never ended, and run again), refused
 * by the schema.
 */
export const isLaterFormat = (raw: object): boolean => {
  const format = (raw as { functai_conversation?: unknown }).functai_conversation;
  return typeof format === "number" && Number.isSafeInteger(format) && format > FORMAT;
};

export type ParsedRecord =
  | { ok: true; record: KnownRecord }
  | { ok: false; unknownKind: true }
  | { ok: false; error: string };

/**
 * Reads one stored record. A kind (or a format number) this version does not
 * know gives `unknownKind` (skip it quietly); a known kind that fails its
 * schema gives `error` (skip it, and say so); anything else is the record
 * itself (not a copy), every key kept.
 *
 * @example
 * parseRecord({ functai_conversation: 1, kind: "stop", at: "2026-09-30T10:00:00Z", seq: 7, turn: "t1" });
 * // { ok: true, record: { …, kind: "stop", turn: "t1" } }
 * parseRecord({ functai_conversation: 1, kind: "entry", at: "…", seq: 8 });  // { ok: false, unknownKind: true }
 * parseRecord({ functai_conversation: 1, kind: "tool", at: "…", seq: 9 });   // { ok: false, error: "tool record: site: …" }
 */
export function parseRecord(raw: unknown): ParsedRecord {
  if (!isObject(raw)) return { ok: false, error: "a record is a JSON object" };
  if (isLaterFormat(raw)) return { ok: false, unknownKind: true };
  const kind = raw.kind;
  if (typeof kind !== "string") return { ok: false, error: "a record has a string kind" };
  if (!isKnownKind(kind)) return { ok: false, unknownKind: true };
  const parsed = recordSchemas[kind].safeParse(raw);
  // The record as given, not zod's copy: the schemas only check (nothing is transformed), and the copy drops
  // an own `__proto__` key (JSON.parse makes one), which a host copying records elsewhere would lose.
  return parsed.success ? { ok: true, record: raw as unknown as KnownRecord } : { ok: false, error: describe(kind, parsed.error) };
}

// ---------------------------------------------------------------------------
// The fast path of readers: a hand-written structural check per known kind,
// exactly the schema's rules above, written out (no zod parse, no copy). It
// only ever says yes for a record the schema takes; anything it does not
// take, or any value it cannot judge cheaply (a class instance where the
// schema wants a plain record, keys inherited or symbols), goes to the
// schema, which decides and words the error. test/records/fast-check.test.ts
// checks the two agree on generated records.

type Check = (r: Record<string, unknown>) => boolean;

const own = Object.hasOwn;
const isStr = (v: unknown): v is string => typeof v === "string";
const isId = (v: unknown): boolean => typeof v === "string" && v.length >= 1;
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
const isNonNeg = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;
const isEffects = (v: unknown): boolean => v === null || v === "reads" || v === "changes";
const isNullableStr = (v: unknown): boolean => v === null || typeof v === "string";
/**
 * Whether JSON writes `v` as it is, so the check of `v` holds of what a store keeps: not a value JSON leaves
 * out (undefined, a function, a symbol) nor an object with a `toJSON` (a Date is its text). The hand checks
 * take only such values (anything else goes to the schema, which for a record about to be written also
 * judges its JSON).
 */
const asIs = (v: unknown): boolean =>
  typeof v === "object"
    ? v === null || typeof (v as { toJSON?: unknown }).toJSON !== "function"
    : v !== undefined && typeof v !== "function" && typeof v !== "symbol" && typeof v !== "bigint"; // (JSON refuses a BigInt)
/** A loose object: any non-null, non-array object (one JSON writes as it is: no `toJSON`). */
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v) && asIs(v);
/** An array JSON writes as it is. */
const isArr = (v: unknown): v is unknown[] => Array.isArray(v) && asIs(v);
/** `z.record(z.string(), …)`, judged only for plain objects without symbol keys (else the schema decides). */
const isPlainRecord = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(v).length === 0 && asIs(v);
};
/** Whether every place of `list` passes, a hole included (`every` skips holes; JSON writes a hole as null, and the schema asks each index). */
const each = (list: readonly unknown[], check: (v: unknown) => boolean): boolean => {
  for (let i = 0; i < list.length; i++) if (!check(list[i])) return false;
  return true;
};
/** An optional key: absent or undefined, or passes. */
const opt = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
/** A required `z.unknown()` key: present, with a value JSON writes as it is. */
const has = (r: Record<string, unknown>, key: string): boolean => own(r, key) && asIs(r[key]);
/** The lease's `until`: the very pattern of the schema's `z.iso.datetime({ offset: true })`. */
const untilPattern = (shapes.lease.until as unknown as { _zod: { pattern: RegExp } })._zod.pattern;
const isUntil = (v: unknown): boolean => typeof v === "string" && untilPattern.test(v);

/** Whether a text is an instant as records write them: ISO 8601 with its offset (the rule of a lease's `until`). */
export const isInstantText = (v: string): boolean => untilPattern.test(v);

const isApprovalAsked = (v: unknown): boolean =>
  isObj(v) &&
  isStr(v.site) && isCount(v.invocation) && isStr(v.path) && isStr(v.name) &&
  opt(v.effects, isEffects) && opt(v.id, isStr) && opt(v.plugin, isNullableStr) && opt(v.question, isStr);

/** A turn's `caller`: `{ evaluation: run }` or `{ optimization: id }` (only plain objects here; the schema judges the rest). */
const isCaller = (v: unknown): boolean => isPlainRecord(v) && (isId((v as Record<string, unknown>).evaluation) || isId((v as Record<string, unknown>).optimization));

/** A turn's `approve`: null (no rule), a rule's name, or a list of names and paths. */
const isApproveRule = (v: unknown): boolean =>
  v === null || v === "changes" || v === "all" || v === "function" || (isArr(v) && each(v, isStr));

const isUsage = (v: unknown): boolean => isObj(v) && isNonNeg(v.input_tokens) && isNonNeg(v.output_tokens);

const TOOL_STATES = new Set(["started", "done", "given", "rerun"]);
const ENDED_STATES = new Set(["done", "failed", "stopped", "abandoned"]);

const fastChecks: { [K in KnownKind]: Check } = {
  program: (r) => isId(r.version) && isStr(r.name) && opt(r.program_kind, isStr),
  turn: (r) =>
    isId(r.turn) && (r.parent === null || isId(r.parent)) && isStr(r.program) && isPlainRecord(r.inputs) && opt(r.request_id, isStr) &&
    opt(r.caller, isCaller) && opt(r.approve, isApproveRule),
  lease: (r) => isId(r.turn) && isStr(r.holder) && isUntil(r.until) && isCount(r.attempt),
  reply: (r) => isId(r.turn) && isStr(r.key) && opt(r.site, isStr) && has(r, "response") && opt(r.attempt, isCount),
  tool: (r) =>
    isId(r.turn) && isStr(r.site) && isCount(r.invocation) && opt(r.id, isStr) && isStr(r.name) &&
    typeof r.state === "string" && TOOL_STATES.has(r.state) && opt(r.effects, isEffects) && opt(r.error, isStr) &&
    opt(r.shown, isArr) && opt(r.path, isStr) && opt(r.attempt, isCount),
  waiting: (r) => isId(r.turn) && isArr(r.approvals) && each(r.approvals, isApprovalAsked) && opt(r.attempt, isCount),
  approval: (r) =>
    isId(r.turn) && isStr(r.site) && isCount(r.invocation) && opt(r.plugin, isNullableStr) && isStr(r.path) &&
    (r.verdict === "yes" || r.verdict === "no") && isNullableStr(r.by) && isNullableStr(r.reason),
  ended: (r) =>
    isId(r.turn) && typeof r.state === "string" && ENDED_STATES.has(r.state) && opt(r.outputs, isPlainRecord) &&
    opt(r.usage, isUsage) && opt(r.attempt, isCount) && opt(r.value, asIs) && answerKept(r), // (a value JSON leaves out: the schema judges it as stored)
  stop: (r) => isId(r.turn),
  head: (r) => isId(r.turn),
  snapshot: (r) => isId(r.turn) && has(r, "snapshot"),
  plugin: (r) => isId(r.turn) && isStr(r.plugin) && r.plugin !== "" && has(r, "data") && opt(r.attempt, isCount),
};

/**
 * {@link parseRecord} for readers of whole conversations: the same answer,
 * but a record that passes is checked by hand, not by zod. A record the hand check does not take is parsed by
 * the schema, so errors (and any record only the schema can judge) read the
 * same as {@link parseRecord}'s.
 */
export function readRecord(raw: unknown): ParsedRecord {
  if (isObj(raw) && raw.functai_conversation === FORMAT && isStr(raw.at) && isCount(raw.seq)) {
    const kind = raw.kind;
    if (typeof kind === "string" && isKnownKind(kind) && fastChecks[kind](raw)) return { ok: true, record: raw as unknown as KnownRecord };
  }
  return parseRecord(raw);
}

/**
 * Checks a record before it is appended: a known kind, format 1, every key
 * its kind needs, and no `seq` (the store gives it). A failure is a bug in the
 * writer, never the user's: writers throw on it.
 *
 * @example
 * checkNewRecord({ functai_conversation: 1, kind: "head", at: new Date().toISOString(), turn: "t1" }); // { ok: true, … }
 * checkNewRecord({ functai_conversation: 1, kind: "head", at: "…", turn: "t1", seq: 3 });             // { ok: false, … }
 */
export function checkNewRecord(raw: unknown): { ok: true; record: NewRecord } | { ok: false; error: string } {
  if (!isObject(raw)) return { ok: false, error: "a record is a JSON object" };
  if ("seq" in raw) return { ok: false, error: "a new record has no seq: the store gives it" };
  const kind = raw.kind;
  if (typeof kind !== "string" || !isKnownKind(kind)) return { ok: false, error: `unknown record kind ${describeValue(kind, 80)}` }; // (a BigInt kind: said, never a TypeError)
  const parsed = newRecordSchemas[kind].safeParse(raw);
  if (!parsed.success) return { ok: false, error: describe(kind, parsed.error) };
  // A store keeps the record's JSON, and readers judge that: a value JSON leaves out (undefined, a function) or
  // writes as another (a Date, any toJSON) would pass here and be refused by every reader (its conversation unreadable).
  const stored = storedForm(raw);
  if ("error" in stored) return { ok: false, error: `${kind} record: ${stored.error}` };
  const again = newRecordSchemas[kind].safeParse(stored.value);
  if (!again.success) return { ok: false, error: `${kind} record as a store keeps it (its JSON): ${issuesText(again.error, "(record)")}` };
  return { ok: true, record: raw as unknown as NewRecord }; // (as given: see parseRecord)
}

/** A record as a store keeps it and readers read it: its JSON, read back. */
function storedForm(raw: object): { value: unknown } | { error: string } {
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch (e) {
    return { error: `it is not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  return text === undefined ? { error: "it is not JSON (its toJSON gives nothing)" } : { value: JSON.parse(text) as unknown };
}

/**
 * {@link checkNewRecord} for writers of many records (a turn's journal): a
 * record the hand check takes passes at once; anything else gets the
 * schema's verdict and wording.
 */
export function checkRecordToWrite(raw: unknown): { ok: true } | { ok: false; error: string } {
  if (isObj(raw) && raw.functai_conversation === FORMAT && isStr(raw.at) && !("seq" in raw)) {
    const kind = raw.kind;
    if (typeof kind === "string" && isKnownKind(kind) && fastChecks[kind](raw)) return { ok: true };
  }
  return checkNewRecord(raw);
}

// Drift guard (types only): every record types.ts allows passes its schema,
// and every record a schema lets through is one types.ts describes. A
// mismatch fails `tsc` here, naming the kind.
type Of<K extends KnownKind> = Extract<KnownRecord, { kind: K }>;
type Known<T> = { [P in keyof T as string extends P ? never : P]: T[P] };
type Defined<T> = T extends readonly (infer E)[]
  ? Defined<E>[]
  : T extends object
    ? { [P in keyof Known<T>]: Defined<Exclude<Known<T>[P], undefined>> }
    : T;
type Drift = {
  [K in KnownKind]: Of<K> extends Known<z.input<Stored[K]>>
    ? Defined<z.output<Stored[K]>> extends Of<K>
      ? never
      : `${K}: schema wider than type`
    : `${K}: type wider than schema`;
}[KnownKind];
const noDrift: Record<Drift, never> = {};
void noDrift;
