/**
 * `npm run lint`'s structural checks on `src/` (run with tsx):
 * - no import cycle (dependency-cruiser; an `import type` counts, printed as →(type));
 * - no import that reaches up a floor of the layer table in scripts/layers.ts
 *   (dependency-cruiser `forbidden` rules made from the table);
 * - every file in a place the table names;
 * - no file of src/ over MAX_LINES lines, none of test/ over MAX_TEST_LINES
 *   (test/fixtures holds users' rule files, not code);
 * - no dead export: a name a module of src/ exports that no other file of
 *   src/, test/, bench/ or scripts/ imports (scripts/dead-exports.ts).
 * Prints one line per problem and exits 1 if there is any.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { deadExports } from "./dead-exports.js";
import { APART, LAYERS, MAX_LINES, MAX_TEST_LINES } from "./layers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TABLE = "scripts/layers.ts";
process.chdir(ROOT); // dependency-cruiser names modules relative to the working directory

interface Entry {
  entry: string;
  floor: number;
}
const ENTRIES: Entry[] = LAYERS.flatMap((entries, floor) => entries.map((entry) => ({ entry, floor })));

const isFolder = (entry: string) => entry.endsWith("/");
const isFilesOf = (entry: string) => entry.endsWith("/*");
function covers(entry: string, file: string): boolean {
  if (isFolder(entry)) return file.startsWith(entry);
  if (isFilesOf(entry)) return file.startsWith(entry.slice(0, -1)) && !file.slice(entry.length - 1).includes("/");
  return file === entry;
}
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function regexOf(entry: string): string {
  if (isFolder(entry)) return `^src/${literal(entry)}`;
  if (isFilesOf(entry)) return `^src/${literal(entry.slice(0, -1))}[^/]+$`;
  return `^src/${literal(entry)}$`;
}
/** Entries longer than `entry` inside it: they take their files away from it. */
const inside = (entry: string) =>
  ENTRIES.filter((other) => other.entry !== entry && isFolder(entry) && other.entry.startsWith(entry));

/** The entry a file of `src/` (a path relative to src/) belongs to: the longest that covers it. */
function ownerOf(file: string): Entry | undefined {
  let best: Entry | undefined;
  for (const candidate of ENTRIES)
    if (covers(candidate.entry, file) && (!best || candidate.entry.length > best.entry.length)) best = candidate;
  return best;
}

/** One `forbidden` rule per floor (nothing above it) and two per pair kept apart, plus the cycle rule. */
function rules(): IForbiddenRuleType[] {
  const forbidden: IForbiddenRuleType[] = [
    { name: "cycle", severity: "error", from: { path: "^src/" }, to: { circular: true } },
  ];
  LAYERS.forEach((entries, floor) => {
    const above = ENTRIES.filter((other) => other.floor > floor);
    if (above.length === 0) return;
    const own = ENTRIES.filter((other) => other.floor === floor);
    forbidden.push({
      name: `up-from-floor-${floor}`,
      severity: "error",
      from: {
        path: entries.map(regexOf),
        pathNot: own
          .flatMap((e) => inside(e.entry))
          .filter((e) => e.floor !== floor)
          .map((e) => regexOf(e.entry)),
      },
      to: {
        path: above.map((e) => regexOf(e.entry)),
        pathNot: above
          .flatMap((e) => inside(e.entry))
          .filter((e) => e.floor <= floor)
          .map((e) => regexOf(e.entry)),
      },
    });
  });
  for (const [a, b] of APART) {
    forbidden.push({
      name: `apart:${a}:${b}`,
      severity: "error",
      from: { path: regexOf(a) },
      to: { path: regexOf(b) },
    });
    forbidden.push({
      name: `apart:${b}:${a}`,
      severity: "error",
      from: { path: regexOf(b) },
      to: { path: regexOf(a) },
    });
  }
  return forbidden;
}

const relative = (module: string) => module.replace(/^src\//, "");
const place = (module: string) => ownerOf(relative(module))?.entry ?? relative(module);

async function importProblems(): Promise<string[]> {
  const { output } = await cruise(
    ["src"],
    {
      includeOnly: "^src/",
      tsPreCompilationDeps: true,
      tsConfig: { fileName: "tsconfig.json" },
      validate: true,
      ruleSet: { forbidden: rules() },
    },
    {},
    { tsConfig: extractTSConfig("tsconfig.json") },
  );
  const result = (typeof output === "string" ? JSON.parse(output) : output) as ICruiseResult;
  const cycles = new Set<string>();
  const problems: string[] = [];
  for (const violation of result.summary.violations) {
    const name = violation.rule.name;
    if (name === "cycle") {
      // Each module of a loop reports it: one line per loop, started at its first module in sort order.
      // A step is the module an import reaches and whether that import is `import type` only.
      const steps = (violation.cycle ?? []).map((step) => ({
        module: step.name,
        typeOnly: step.dependencyTypes.includes("type-only"),
      }));
      const modules = steps.map((step) => step.module);
      const start = modules.indexOf([...modules].sort()[0]!);
      const turned = [...steps.slice(start), ...steps.slice(0, start)];
      const arrows = [...turned.slice(1), turned[0]!].map(
        (step) => `${step.typeOnly ? " →(type) " : " → "}${step.module}`,
      );
      cycles.add(`import cycle: ${turned[0]!.module}${arrows.join("")}`);
    } else if (name.startsWith("apart:")) {
      problems.push(
        `${violation.from} imports ${violation.to}: ${place(violation.from)} and ${place(violation.to)} must not import each other (${TABLE})`,
      );
    } else {
      problems.push(
        `${violation.from} imports ${violation.to}: ${place(violation.from)} may not import ${place(violation.to)}, a floor above it (${TABLE})`,
      );
    }
  }
  return [...[...cycles].sort(), ...problems.sort()];
}

/** The files under `dir`, relative to it, with `/` between folders, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((dirent) => dirent.isFile())
    .map((dirent) => path.relative(dir, path.join(dirent.parentPath, dirent.name)).split(path.sep).join("/"))
    .sort();
}

function lineCount(file: string): number {
  const text = readFileSync(file, "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function fileProblems(): string[] {
  const unplaced = new Map<string, number>();
  const problems: string[] = [];
  for (const file of filesUnder("src")) {
    if (!ownerOf(file)) {
      const folder = file.includes("/") ? `${file.slice(0, file.lastIndexOf("/"))}/` : file;
      unplaced.set(folder, (unplaced.get(folder) ?? 0) + 1);
    }
    const lines = lineCount(path.join("src", file));
    if (lines > MAX_LINES)
      problems.push(`src/${file}: ${lines} lines, over ${MAX_LINES}: split it, one concern a file`);
  }
  const notInTable = [...unplaced].map(([place, count]) =>
    place.endsWith("/")
      ? `src/${place} (${count} file${count === 1 ? "" : "s"}): folder not in the layer table (${TABLE})`
      : `src/${place}: file not in the layer table (${TABLE})`,
  );
  return [...notInTable, ...problems];
}

function testProblems(): string[] {
  const problems: string[] = [];
  for (const file of filesUnder("test")) {
    if (!file.endsWith(".ts") || file.startsWith("fixtures/")) continue;
    const lines = lineCount(path.join("test", file));
    if (lines > MAX_TEST_LINES)
      problems.push(`test/${file}: ${lines} lines, over ${MAX_TEST_LINES}: split it by topic`);
  }
  return problems;
}

function exportProblems(): string[] {
  return deadExports(ROOT).map(
    ({ file, name, line }) =>
      `${file}:${line}: export ${name} is imported by no other file of src/, test/, bench/ or scripts/: ` +
      "drop the `export` (or the code, if nothing uses it)",
  );
}

const problems = [...fileProblems(), ...testProblems(), ...exportProblems(), ...(await importProblems())];
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`structure: ${problems.length} problem${problems.length === 1 ? "" : "s"} in src/ and test/`);
  process.exit(1);
}
console.log(
  "structure: src/ has no import cycle, no upward import, no file outside the layer table or over the line limit, " +
    "no dead export; no file of test/ is over the line limit",
);
