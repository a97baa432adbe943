/**
 * The benchmark's world: a temporary home and project, `count` rule files of
 * about 1 KB under `<project>/.opencode/rules/group-NNN/` (100 per folder),
 * half always-on and half conditional (globs and keywords), and a working set
 * of project source files, some of which the conditional rules' globs match.
 */
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SETTLED_AFTER_MS } from "../src/discover/parse-cache.js";
import { SAVE_DELAY_MS } from "../src/discover/parse-cache-file.js";

export interface BenchProject {
  root: string;
  home: string;
  project: string;
  rulesDir: string;
}

export async function benchProject(prefix: string): Promise<BenchProject> {
  const root = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const home = join(root, "home");
  const project = join(root, "project");
  const rulesDir = join(project, ".opencode", "rules");
  await mkdir(home, { recursive: true });
  await mkdir(rulesDir, { recursive: true });
  return { root, home, project, rulesDir };
}

/**
 * Points the home folder and OpenCode's config folders at `home`, and drops
 * the variables that change the plugin's options, so the user's own rules and
 * config never leak into a run. For the rest of the process.
 */
export function isolateEnv(home: string): void {
  process.env.HOME = home;
  process.env.USERPROFILE = home;
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  process.env.OPENCODE_CONFIG_DIR = join(home, ".config", "opencode");
  process.env.XDG_CACHE_HOME = join(home, ".cache");
  process.env.XDG_STATE_HOME = join(home, ".local", "state");
  for (const key of Object.keys(process.env)) {
    if (key === "OPENCODE_CONFIG" || key.startsWith("OPENCODE_RULEBOOK_")) delete process.env[key];
  }
}

const PARAGRAPHS = [
  "Keep functions small and named for what they do. Prefer early returns to nested conditions, and keep each branch short enough to read at a glance.",
  "Every public function has a doc comment that says what it returns and when it throws. Internal helpers get one line when their name is not enough.",
  "Tests live next to the code they test and name the behaviour, not the method. A test that needs more than one screen of setup is a design smell.",
  "Errors carry the value that was wrong and what was expected. Never swallow an error silently: log it with its context or let it reach the caller.",
  "No module reaches into another's internals. Shared types live in their own module; a cycle between modules is a bug to fix, not to work around.",
  "Names are whole words. Abbreviations only where the domain uses them, and then everywhere the same way; a boolean reads as a question.",
];

/** About 1 KB of rule text: a heading and six short paragraphs naming the rule. */
function body(heading: string, i: number): string {
  return `# ${heading}\n\n${PARAGRAPHS.map((text, p) => `${text} (${heading}, point ${p + 1}.)`).join("\n\n")}\n\nRule ${i} ends here.\n`;
}

/** The text of rule number `i`: even numbers always-on, odd ones on globs and keywords. */
export function ruleText(i: number): string {
  if (i % 2 === 0) {
    return i % 4 === 0
      ? body(`Rule ${i}`, i)
      : `---\ndescription: House rule ${i}\nalwaysApply: true\n---\n${body(`Rule ${i}`, i)}`;
  }
  return `---\ndescription: Module rule ${i}\nglobs: src/mod-${i}/**/*.ts, src/mod-${i}/**/*.tsx\nkeywords: [kw${i}, topic-${i}]\n---\n${body(`Module ${i}`, i)}`;
}

/**
 * Waits until files written now are older than the parse cache's settling
 * time (discover/parse-cache.ts), as rule files are at a real start: the
 * cache keeps no parse of a file changed in the last few seconds.
 */
export function untilSettled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SETTLED_AFTER_MS + 500));
}

/** Waits until a start's parse cache, saved after a delay (discover/parse-cache-file.ts), is written. */
export function untilCacheSaved(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SAVE_DELAY_MS + 500));
}

/** Writes `count` rule files (in folders of 100); returns their paths. */
export async function writeRules(rulesDir: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let group = 0; group * 100 < count; group++) {
    const dir = join(rulesDir, `group-${String(group).padStart(3, "0")}`);
    await mkdir(dir, { recursive: true });
    const batch: Promise<void>[] = [];
    for (let i = group * 100; i < Math.min(count, (group + 1) * 100); i++) {
      const path = join(dir, `rule-${String(i).padStart(5, "0")}.md`);
      paths.push(path);
      batch.push(writeFile(path, ruleText(i)));
    }
    await Promise.all(batch);
  }
  return paths;
}

/**
 * Writes `count` distinct source files under `<project>/src/`, spread over 100
 * modules `mod-1`, `mod-3`, … `mod-199` (each the glob of one conditional rule,
 * so with 200+ rules 100 of their globs match some file); returns absolute paths.
 */
export async function writeWorkingSet(project: string, count: number): Promise<string[]> {
  const files: string[] = [];
  for (let i = 0; i < count; i++)
    files.push(join(project, `src/mod-${(i % 100) * 2 + 1}/part-${Math.floor(i / 100)}/file-${i}.ts`));
  for (const dir of new Set(files.map((file) => dirname(file)))) await mkdir(dir, { recursive: true });
  await Promise.all(files.map((file, i) => writeFile(file, `export const value${i} = 1;\n`)));
  return files;
}
