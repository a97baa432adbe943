/**
 * Dead exports, for scripts/check-structure.ts: a name a module of `src/`
 * exports (a function, const, class, type, interface, enum) that no other file
 * of src/, test/, bench/ or scripts/ imports. The package's entries (src/index.ts,
 * src/tui.ts and the command, src/cli/main.ts) are what users import: exempt.
 *
 * Imports are read from each file's syntax (TypeScript's parser, no type
 * check): `import`, `import type`, `export … from` (names re-exported use the
 * names they name; `export *` uses every export), `import("…")` (every export)
 * and `typeof import("…").name` (that name; without a name, every export). A
 * namespace import, `import * as ns`, uses the names the file writes as
 * `ns.name`. Relative specifiers only (a package is not src/): `./x.js` is
 * `./x.ts`, as NodeNext resolves them; an import of a file that does not exist
 * is tsc's to report.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The files an export is looked for in, relative to the repository; test/fixtures holds users' rule files. */
const READ = ["src", "test", "bench", "scripts"];
const SKIP = ["test/fixtures/"];
/** The package's entries: their exports are its API. */
const ENTRIES = ["src/index.ts", "src/tui.ts", "src/cli/main.ts"];

/** Every export of a module. */
const ALL = "*";

const slashed = (file: string) => file.split(path.sep).join("/");

function typeScriptFiles(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((dirent) => dirent.isFile() && /\.(ts|tsx|mts)$/.test(dirent.name))
    .map((dirent) => slashed(path.relative(root, path.join(dirent.parentPath, dirent.name))))
    .filter((file) => !SKIP.some((skip) => file.startsWith(skip)));
}

/** The file a relative specifier names, relative to the repository; undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const joined = slashed(path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)));
  if (/\.(js|mjs|jsx)$/.test(joined)) return joined.replace(/\.(m?)js(x?)$/, ".$1ts$2");
  return joined;
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** The names a module exports, with the line each is declared on. */
function exportsOf(source: ts.SourceFile): Map<string, number> {
  const names = new Map<string, number>();
  const add = (name: string, node: ts.Node) =>
    names.set(name, source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause))
        for (const element of statement.exportClause.elements) add(element.name.text, element);
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      add("default", statement);
      continue;
    }
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
    if (hasModifier(statement, ts.SyntaxKind.DefaultKeyword)) add("default", statement);
    else if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations)
        for (const name of bindingNames(declaration.name)) add(name, declaration);
    else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      statement.name &&
      ts.isIdentifier(statement.name)
    )
      add(statement.name.text, statement);
  }
  return names;
}

/** What `file` imports: the file each import names (relative to the repository) and the names it uses of it. */
function importsOf(file: string, source: ts.SourceFile, text: string): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const use = (specifier: ts.Expression | ts.TypeNode | undefined, names: readonly string[]) => {
    const literal =
      specifier && ts.isLiteralTypeNode(specifier) ? specifier.literal : (specifier as ts.Expression | undefined);
    if (!literal || !ts.isStringLiteral(literal)) return;
    const target = resolveSpecifier(file, literal.text);
    if (!target) return;
    const set = used.get(target) ?? new Set<string>();
    for (const name of names) set.add(name);
    used.set(target, set);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (!clause) continue;
      const names: string[] = clause.name ? ["default"] : [];
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
      if (bindings && ts.isNamespaceImport(bindings)) names.push(...qualifiedBy(bindings.name.text, text));
      use(statement.moduleSpecifier, names);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const clause = statement.exportClause;
      use(
        statement.moduleSpecifier,
        clause && ts.isNamedExports(clause)
          ? clause.elements.map((element) => (element.propertyName ?? element.name).text)
          : [ALL],
      );
    }
  }
  // `import(…)` and `typeof import(…)` may sit anywhere: walked only in a file that has one.
  if (/\bimport\s*\(/.test(text)) {
    const visit = (node: ts.Node): void => {
      if (ts.isImportTypeNode(node)) {
        const qualifier = node.qualifier;
        const first = qualifier && (ts.isIdentifier(qualifier) ? qualifier : leftmost(qualifier));
        use(node.argument, [first ? first.text : ALL]);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        use(node.arguments[0], [ALL]);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return used;
}

function leftmost(name: ts.QualifiedName): ts.Identifier {
  let left: ts.EntityName = name;
  while (ts.isQualifiedName(left)) left = left.left;
  return left;
}

/** The names written as `ns.name` in a file's text. */
function qualifiedBy(namespace: string, text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(new RegExp(`(?<![\\w$.])${namespace}\\s*\\.\\s*([A-Za-z_$][\\w$]*)`, "g")))
    names.add(match[1]!);
  return [...names];
}

export interface DeadExport {
  file: string;
  name: string;
  line: number;
}

/** The exports of src/ no other file imports, in file order; `root` is the repository. */
export function deadExports(root: string): DeadExport[] {
  const files = READ.flatMap((dir) => typeScriptFiles(root, dir));
  const used = new Map<string, Set<string>>();
  const exported = new Map<string, Map<string, number>>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    if (file.startsWith("src/") && !file.endsWith(".d.ts") && !ENTRIES.includes(file))
      exported.set(file, exportsOf(source));
    for (const [target, names] of importsOf(file, source, text)) {
      if (target === file) continue;
      const set = used.get(target) ?? new Set<string>();
      for (const name of names) set.add(name);
      used.set(target, set);
    }
  }
  const dead: DeadExport[] = [];
  for (const file of [...exported.keys()].sort()) {
    const names = used.get(file) ?? new Set<string>();
    if (names.has(ALL)) continue;
    for (const [name, line] of exported.get(file)!) if (!names.has(name)) dead.push({ file, name, line });
  }
  return dead;
}
