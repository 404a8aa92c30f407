/**
 * Every name a package entry point exports, with whether its doc comment has
 * an `@example`: read with the TypeScript compiler from the sources each
 * entry of package.json `exports` names (its `functai-source` files).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** One exported name of one entry. */
export interface ExportDoc {
  /** The package.json `exports` key: `.`, `./testing`, … */
  entry: string;
  /** The entry's source file (repository-relative): websocket has two, for Node and for browsers. */
  source: string;
  name: string;
  /** Where it is declared (repository-relative file of its first declaration). */
  file: string;
  example: boolean;
}

type Conditions = string | { [condition: string]: Conditions };

/** The source files of every entry point: `functai-source` targets (both of websocket's). */
export function entrySources(root: string): Map<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, Conditions> };
  const sources = new Map<string, string[]>();
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue; // ./package.json
    const source = target["functai-source"];
    if (source === undefined) continue;
    const files = typeof source === "string" ? [source] : Object.values(source).filter((f): f is string => typeof f === "string");
    sources.set(
      entry,
      files.map((f) => join(root, f)),
    );
  }
  return sources;
}

/** Whether a declaration (or the statement that holds it: `export const x = …`) carries an `@example` tag. */
function hasExample(decl: ts.Declaration): boolean {
  const holders: ts.Node[] = [decl];
  if (ts.isVariableDeclaration(decl)) holders.push(decl.parent.parent);
  return holders.some((node) => ts.getJSDocTags(node).some((tag) => tag.tagName.text === "example"));
}

/** Every exported name of every entry, resolved to its declarations (through re-exports and `export *`). */
export function exportDocs(root: string): ExportDoc[] {
  const sources = entrySources(root);
  const files = [...sources.values()].flat();
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  const program = ts.createProgram(files, { ...config!.options, noEmit: true });
  const checker = program.getTypeChecker();
  const docs: ExportDoc[] = [];
  for (const [entry, entryFiles] of sources) {
    for (const file of entryFiles) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
      for (const exported of module ? checker.getExportsOfModule(module) : []) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const decls = symbol.declarations ?? [];
        docs.push({
          entry,
          source: file.slice(root.length + 1),
          name: exported.name,
          file: decls[0]?.getSourceFile().fileName.slice(root.length + 1) ?? "?",
          example: decls.some(hasExample),
        });
      }
    }
  }
  return docs;
}
