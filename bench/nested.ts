/**
 * The search for nested rules folders (Cursor's `.cursor/rules`, Windsurf's
 * `.windsurf/rules` below the project root) in a 100,000-file repository,
 * against its floor.
 *
 * The repository, written once in a temporary folder: packages, services and
 * apps with source folders ~10 files wide and 6 deep, a large
 * `node_modules`, a root `dist`, folders git ignores (the root `.gitignore`
 * with a negation, a nested `.gitignore`, `.git/info/exclude`), nested rules
 * folders among the sources and decoys in every skipped tree.
 *
 * Measured: the discovery of the Cursor and Windsurf sources from the root,
 * through the plugin's own `loadRules` (rules folders, rule files, the search
 * and its ignore files), from the build (`--src`: the sources). Floor: a plain recursive `fs.readdir` of exactly the
 * folders the search must visit (the tree less hidden, dependency, build and
 * ignored folders), every folder of a level at once; also shown, the same one
 * folder at a time. The run checks that the search found exactly the nested
 * rules folders, none in a skipped tree, without a warning.
 */
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_MAX_RULE_BYTES } from "../src/discover/discover.js";
import { nodeRuleFs } from "../src/discover/fs.js";
import { NESTED_SEARCH } from "../src/discover/nested-search.js";
import { SKIPPED_FOLDERS } from "../src/discover/walk.js";
import { REPO } from "./plugin.js";
import { median, ms, ratio } from "./stats.js";

/** The plugin's own `loadRules`: from the build, as the other sections measure it (`npm run build` first), or with `--src` from the sources. */
async function pluginLoadRules(): Promise<typeof import("../src/formats/load.js").loadRules> {
  const built = pathToFileURL(join(REPO, "dist", "formats", "load.js")).href;
  const module = (await import(
    process.argv.includes("--src") ? "../src/formats/load.js" : built
  )) as typeof import("../src/formats/load.js");
  return module.loadRules;
}

export const REPOSITORY_FILES = 100_000;

/** Folders git ignores in the generated repository (the floor does not read them). */
const IGNORED = ["generated", "tmp-build", "local-data", "apps/web/storybook-static"];

/** The nested rules folders the search must find, by source (the root's own are project levels, not nested). */
const NESTED = {
  cursor: ["packages/pkg-03", "services/worker", "apps/web", "tmp-keep"],
  windsurf: ["services/api", "apps/web", "packages/pkg-12/src/area-b"],
};

const RULE = "---\nalwaysApply: true\n---\nA nested rule.\n";
const WINDSURF_RULE = "---\ntrigger: glob\nglobs: *.py\n---\nA nested rule.\n";

/** Relative path → content: the repository's special files (rules, ignore files, decoys). */
function specialFiles(): Record<string, string> {
  const files: Record<string, string> = {
    ".gitignore": "# build output\n/generated/\n/tmp-*/\n!/tmp-keep/\n*.log\n",
    ".git/info/exclude": "local-data/\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    "apps/web/.gitignore": "storybook-static/\n",
    ".cursor/rules/root-cursor.mdc": RULE,
    ".windsurf/rules/root-windsurf.md": WINDSURF_RULE,
    "services/api/.windsurf/rules/db/migrations.md": WINDSURF_RULE,
  };
  for (const folder of NESTED.cursor) files[`${folder}/.cursor/rules/cursor-rule.mdc`] = RULE;
  for (const folder of NESTED.windsurf) files[`${folder}/.windsurf/rules/windsurf-rule.md`] = WINDSURF_RULE;
  // Decoys: rules folders in trees the search must not enter.
  for (const tree of ["node_modules/pkg-007", "dist/chunks", ...IGNORED.map((folder) => `${folder}/inner`)]) {
    files[`${tree}/.cursor/rules/decoy.mdc`] = RULE;
    files[`${tree}/.windsurf/rules/decoy.md`] = WINDSURF_RULE;
  }
  return files;
}

/** `count` files in `folder`, named `prefix-N.ext`. */
function filesIn(folder: string, count: number, ext: string, prefix = "file"): string[] {
  return Array.from({ length: count }, (_, i) => `${folder}/${prefix}-${i}.${ext}`);
}

/** The paths of the repository's ordinary files: `total` less the special ones. */
function ordinaryFiles(total: number): string[] {
  const files: string[] = [];
  // Dependencies: 600 packages of 50 files in 4 folders.
  for (let p = 0; p < 600; p++) {
    const pkg = `node_modules/pkg-${String(p).padStart(3, "0")}`;
    files.push(
      `${pkg}/package.json`,
      `${pkg}/README.md`,
      `${pkg}/index.js`,
      ...filesIn(`${pkg}/lib`, 20, "js"),
      ...filesIn(`${pkg}/lib/internal`, 10, "js"),
    );
    files.push(...filesIn(`${pkg}/dist`, 17, "js"));
  }
  // Build output and ignored trees.
  for (let c = 0; c < 150; c++) files.push(...filesIn(`dist/chunks/c-${c}`, 20, "js"));
  for (let c = 0; c < 400; c++) files.push(...filesIn(`generated/part-${c}`, 20, "ts"));
  for (let c = 0; c < 50; c++) files.push(...filesIn(`tmp-build/step-${c}`, 20, "o"));
  for (let c = 0; c < 100; c++) files.push(...filesIn(`local-data/set-${c}`, 20, "json"));
  for (let c = 0; c < 50; c++) files.push(...filesIn(`apps/web/storybook-static/assets-${c}`, 20, "js"));
  files.push(...filesIn("tmp-keep", 50, "txt"), ...filesIn(".git/objects/pack", 200, "pack"));
  // Sources, until the total: 34 projects, 6 areas × 4 modules × 5 parts each.
  const projects = [
    ...Array.from({ length: 24 }, (_, i) => `packages/pkg-${String(i).padStart(2, "0")}`),
    ...["api", "worker", "auth", "billing", "search", "notify"].map((name) => `services/${name}`),
    ...["web", "mobile", "admin", "docs"].map((name) => `apps/${name}`),
  ];
  const leaves: string[] = [];
  for (const project of projects) {
    files.push(`${project}/package.json`, `${project}/README.md`, ...filesIn(`${project}/tests`, 8, "test.ts"));
    for (const area of ["a", "b", "c", "d", "e", "f"]) {
      for (let module = 0; module < 4; module++) {
        files.push(`${project}/src/area-${area}/module-${module}/index.ts`);
        for (let part = 0; part < 5; part++) leaves.push(`${project}/src/area-${area}/module-${module}/part-${part}`);
      }
    }
  }
  const remaining = total - files.length;
  for (let i = 0; i < remaining; i++)
    files.push(`${leaves[i % leaves.length]}/file-${Math.floor(i / leaves.length)}.ts`);
  return files;
}

export interface NestedRepository {
  root: string;
  home: string;
  project: string;
  files: number;
}

/** Writes the repository; returns where, and how many files it holds. */
export async function writeRepository(): Promise<NestedRepository> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "rulebook-bench-nested-")));
  const home = join(root, "home");
  const project = join(root, "project");
  const special = specialFiles();
  const files = [...ordinaryFiles(REPOSITORY_FILES - Object.keys(special).length), ...Object.keys(special)];
  await mkdir(home, { recursive: true });
  for (const folder of new Set(files.map((file) => dirname(join(project, file)))))
    await mkdir(folder, { recursive: true });
  for (let i = 0; i < files.length; i += 500) {
    await Promise.all(files.slice(i, i + 500).map((file) => writeFile(join(project, file), special[file] ?? "")));
  }
  return { root, home, project, files: files.length };
}

/** Whether the search enters this sub-folder (`rel` from the project root): what the floor reads. */
function searched(rel: string, name: string): boolean {
  return !name.startsWith(".") && !SKIPPED_FOLDERS.has(name) && !IGNORED.includes(rel);
}

/** The floor: every folder the search must visit, read one at a time; returns how many. */
async function readOneByOne(project: string): Promise<number> {
  const queue = [""];
  for (let head = 0; head < queue.length; head++) {
    const rel = queue[head] as string;
    for (const entry of await readdir(join(project, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory() && searched(child, entry.name)) queue.push(child);
    }
  }
  return queue.length;
}

/** The same folders, every folder of a level read at once. */
async function readLevelsAtOnce(project: string): Promise<number> {
  let level = [""];
  let count = 0;
  while (level.length > 0) {
    count += level.length;
    const listed = await Promise.all(
      level.map(async (rel) => ({ rel, entries: await readdir(join(project, rel), { withFileTypes: true }) })),
    );
    level = listed.flatMap(({ rel, entries }) =>
      entries
        .filter(
          (entry) => entry.isDirectory() && searched(rel === "" ? entry.name : `${rel}/${entry.name}`, entry.name),
        )
        .map((entry) => (rel === "" ? entry.name : `${rel}/${entry.name}`)),
    );
  }
  return count;
}

export interface NestedResult {
  files: number;
  /** Folders the search must visit. */
  folders: number;
  runs: number;
  searchMs: number;
  /** The first search, right after the repository was written. */
  firstSearchMs: number;
  floorMs: number;
  parallelFloorMs: number;
  rules: number;
  /** What was wrong with what the search found; empty when it found exactly the nested folders. */
  problems: string[];
}

/** Medians of `runs` searches and floors over the repository (written once, removed after). */
export async function benchNested(runs: number): Promise<NestedResult> {
  const repository = await writeRepository();
  try {
    const { project, home } = repository;
    const context = {
      env: {},
      home,
      directory: project,
      worktree: project,
      fs: nodeRuleFs,
      maxRuleBytes: DEFAULT_MAX_RULE_BYTES,
    };
    const loadRules = await pluginLoadRules();
    const search = () => loadRules(context, { sources: ["cursor", "windsurf"] });
    let t = performance.now();
    const loaded = await search();
    const firstSearchMs = performance.now() - t;
    const searchTimes: number[] = [];
    const floorTimes: number[] = [];
    const parallelTimes: number[] = [];
    let folders = 0;
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      folders = await readOneByOne(project);
      floorTimes.push(performance.now() - t);
      t = performance.now();
      await readLevelsAtOnce(project);
      parallelTimes.push(performance.now() - t);
      t = performance.now();
      await search();
      searchTimes.push(performance.now() - t);
    }
    return {
      files: repository.files,
      folders,
      runs,
      searchMs: median(searchTimes),
      firstSearchMs,
      floorMs: median(floorTimes),
      parallelFloorMs: median(parallelTimes),
      rules: loaded.rules.length,
      problems: foundProblems(project, loaded.folders, loaded.warnings.length, folders),
    };
  } finally {
    await rm(repository.root, { recursive: true, force: true });
  }
}

/** How the rules folders found differ from the nested ones expected, and any warning. */
function foundProblems(project: string, found: readonly string[], warnings: number, folders: number): string[] {
  const expected = [
    ".cursor/rules",
    ".windsurf/rules",
    ...NESTED.cursor.map((folder) => `${folder}/.cursor/rules`),
    ...NESTED.windsurf.map((folder) => `${folder}/.windsurf/rules`),
  ].sort();
  const rel = found
    .filter((folder) => folder.startsWith(`${project}/`))
    .map((folder) => folder.slice(project.length + 1))
    .sort();
  const problems: string[] = [];
  const missing = expected.filter((folder) => !rel.includes(folder));
  const extra = rel.filter((folder) => !expected.includes(folder));
  if (missing.length > 0) problems.push(`not found: ${missing.join(", ")}`);
  if (extra.length > 0) problems.push(`found in a skipped tree: ${extra.join(", ")}`);
  if (warnings > 0) problems.push(`${warnings} warning(s)`);
  if (folders > NESTED_SEARCH.maxFolders)
    problems.push(`${folders} folders to search, over the limit of ${NESTED_SEARCH.maxFolders}`);
  return problems;
}

// Alone: `npm run build && npx tsx bench/nested.ts [--quick] [--src]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchNested(process.argv.includes("--quick") ? 3 : 10);
  console.log(
    `${result.files} files, ${result.folders} folders to search; search ${ms(result.searchMs)} ms (first ${ms(result.firstSearchMs)} ms), ` +
      `floor ${ms(result.parallelFloorMs)} ms (${ratio(result.searchMs / result.parallelFloorMs)}), one by one ${ms(result.floorMs)} ms; ` +
      `${result.rules} rules; ${result.problems.length === 0 ? "found exactly the nested folders" : result.problems.join("; ")}`,
  );
}
