/**
 * Reading a value with a user's zod schema. `safeParse` gives back what the
 * schema refuses, and lets what it throws escape (a refinement with a bug, a
 * transform whose lookup failed, an async refinement): `readWith` gives that
 * back too, as `thrown`, so each caller says whose fault it is in its own
 * words (the tool's, the program's, the row's) instead of crashing.
 */
import type { z } from "zod";

/** What a schema made of a value: `safeParse`'s result, or what it threw. */
export type SchemaRead<S extends z.ZodType> = ReturnType<S["safeParse"]> | { thrown: unknown };

/**
 * @example
 * const read = readWith(z.number(), "4");
 * if ("thrown" in read) ...; else if (!read.success) issuesText(read.error, "input"); // "input: Invalid input: expected number, received string"
 */
export function readWith<S extends z.ZodType>(schema: S, value: unknown): SchemaRead<S> {
  try {
    return schema.safeParse(value) as ReturnType<S["safeParse"]>;
  } catch (e) {
    return { thrown: e };
  }
}

/** A schema's issues in one line, each at its path (`root` for the value itself): `order.id: Required; amount: Too small`. */
export const issuesText = (error: z.ZodError, root: string): string =>
  error.issues.map((i) => `${i.path.map(String).join(".") || root}: ${i.message}`).join("; ");
