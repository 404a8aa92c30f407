/**
 * The README's TypeScript blocks as files: ```ts blocks, the one marked
 * `prelude` shared by the others. Each block becomes a module that imports,
 * from the prelude module, the prelude's names it uses and does not declare
 * itself; the prelude exports every name it declares or imports.
 */

export interface Block {
  /** 1-based, in README order. */
  index: number;
  /** The README line the block's code starts on. */
  line: number;
  /** The words after ```ts: `prelude`, `no-run`. */
  flags: string[];
  code: string;
}

/** Every ```ts block of a Markdown text. */
export function tsBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts\b(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== "```") end++;
    blocks.push({ index: blocks.length + 1, line: start + 1, flags: open[1]!.trim().split(/\s+/).filter(Boolean), code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

const IDENT = /[A-Za-z_$][\w$]*/g;

/** The names a module's top level declares (const/let/function/class, destructured ones included). */
export function declaredNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/^(?:export\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|interface|type)\s+([^=(<:]+)/gm)) {
    for (const name of m[1]!.match(IDENT) ?? []) names.add(name);
  }
  return names;
}

/** The names a module imports (values and types), by whether they are type-only. */
export function importedNames(code: string): { values: Set<string>; types: Set<string> } {
  const values = new Set<string>();
  const types = new Set<string>();
  for (const m of code.matchAll(/^import\s+(type\s+)?(?:\*\s+as\s+(\w+)|(\w+)|\{([^}]*)\})\s+from/gm)) {
    const allTypes = m[1] !== undefined;
    if (m[2] ?? m[3]) (allTypes ? types : values).add((m[2] ?? m[3])!);
    for (const part of (m[4] ?? "").split(",").map((p) => p.trim()).filter(Boolean)) {
      const isType = allTypes || part.startsWith("type ");
      const name = part.replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)!.trim();
      (isType ? types : values).add(name);
    }
  }
  return { values, types };
}

/** The prelude as a module: its code, then an export of every name it declares or imports. */
export function preludeModule(code: string): string {
  const declared = [...declaredNames(code)];
  const { values, types } = importedNames(code);
  const typeNames = new Set([...types, ...declared.filter((n) => new RegExp(`^(?:export\\s+)?(?:interface|type)\\s+${n}\\b`, "m").test(code))]);
  const valueNames = [...values, ...declared.filter((n) => !typeNames.has(n))];
  return `${code}\nexport { ${valueNames.join(", ")} };\nexport type { ${[...typeNames].join(", ")} };\n`;
}

/** A block as a module: the prelude's names it uses (and does not declare or import) imported first. */
export function blockModule(code: string, prelude: string, preludePath: string): string {
  const own = declaredNames(code);
  const { values, types } = importedNames(code);
  const used = new Set(code.match(IDENT) ?? []);
  const offered = importedNames(prelude);
  const preludeDeclared = declaredNames(prelude);
  const wanted = (n: string) => used.has(n) && !own.has(n) && !values.has(n) && !types.has(n);
  const valueNames = [...offered.values, ...[...preludeDeclared].filter((n) => !offered.types.has(n))].filter(wanted);
  const typeNames = [...offered.types].filter(wanted);
  const imports = [
    valueNames.length > 0 ? `import { ${[...new Set(valueNames)].join(", ")} } from "${preludePath}";` : `import "${preludePath}";`,
    typeNames.length > 0 ? `import type { ${typeNames.join(", ")} } from "${preludePath}";` : "",
  ];
  return `${imports.filter(Boolean).join("\n")}\n${code}\nexport {};\n`;
}
