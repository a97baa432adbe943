/**
 * The package as npm would publish it (`npm pack --dry-run`, offline, of the
 * built dist/): the three entries with their types, the command (executable),
 * README, LICENSE, the docs the README links to and package.json, each
 * source file's build once, and nothing else of the repository (sources,
 * tests, tools, examples); source maps carry the sources they point to, which
 * the package does not ship.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { buildOnce, REPO } from "../support/cli.js";

interface PackedFile {
  path: string;
  mode: number;
}

let files: PackedFile[];
beforeAll(() => {
  buildOnce();
  const listed = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--offline"], {
    cwd: REPO,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    shell: process.platform === "win32",
  });
  files = (JSON.parse(listed) as { files: PackedFile[] }[])[0]?.files ?? [];
}, 180_000);

const paths = () => files.map((file) => file.path).sort();

/** The sources dist/ is built from (declaration files emit nothing), relative to src/ without `.ts`. */
function sourceModules(dir = join(REPO, "src"), prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceModules(join(dir, entry.name), `${prefix}${entry.name}/`)
      : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")
        ? [`${prefix}${entry.name.slice(0, -3)}`]
        : [],
  );
}

/** The files of docs/, relative to the repository. */
const docs = () =>
  readdirSync(join(REPO, "docs"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)).split(sep).join("/"));

test("exactly package.json, README.md, LICENSE, docs/ and each source's .js, .d.ts and .js.map under dist/", () => {
  const built = sourceModules().flatMap((module) => [
    `dist/${module}.js`,
    `dist/${module}.d.ts`,
    `dist/${module}.js.map`,
  ]);
  expect(paths()).toEqual(["LICENSE", "README.md", "package.json", ...docs(), ...built].sort());
});

test("LICENSE is the MIT license package.json names", () => {
  const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { license: string };
  expect(manifest.license).toBe("MIT");
  expect(paths()).toContain("LICENSE");
  const license = readFileSync(join(REPO, "LICENSE"), "utf8");
  expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 opencode-rulebook contributors\n/);
  expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
});

test("the docs the README links to are in it: the Rules panel's screen and every page of docs/", () => {
  expect(paths()).toContain("docs/rules-panel.txt");
  const pages = docs().filter((path) => path.endsWith(".md"));
  for (const page of pages) expect(paths()).toContain(page);
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const linked = [...readme.matchAll(/\]\((docs\/[^)#\s]+)(?:#[^)\s]*)?\)/g)].map((link) => link[1]!);
  expect(linked).toContain("docs/rules-panel.txt");
  for (const path of new Set(linked)) expect(paths(), `README links ${path}`).toContain(path);
});

test("the entries, their types and the command are in it; the command is executable", () => {
  const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    exports: Record<string, Record<string, string>>;
    bin: Record<string, string>;
  };
  const targets = [
    ...Object.values(manifest.exports).flatMap((entry) => Object.values(entry)),
    ...Object.values(manifest.bin),
  ].map((target) => target.replace(/^\.\//, ""));
  expect(new Set(targets)).toEqual(
    new Set(["dist/index.js", "dist/index.d.ts", "dist/tui.js", "dist/tui.d.ts", "dist/cli/main.js"]),
  );
  for (const target of targets) expect(paths()).toContain(target);
  const command = files.find((file) => file.path === "dist/cli/main.js");
  expect((command?.mode ?? 0) & 0o111).toBe(0o111);
  expect(readFileSync(join(REPO, "dist", "cli", "main.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
});

test("nothing of the repository's sources, tests or tools", () => {
  for (const path of paths()) {
    expect(path).not.toMatch(/^(src|test|bench|scripts|rules-examples|node_modules|\.ci)\//);
    expect(path).not.toMatch(/\.test\.|\.ts$(?<!\.d\.ts)/);
  }
});

test("every source map carries the text of each source it names", () => {
  const maps = paths().filter((path) => path.endsWith(".js.map"));
  expect(maps.length).toBeGreaterThan(0);
  for (const path of maps) {
    const map = JSON.parse(readFileSync(join(REPO, path), "utf8")) as {
      sources: string[];
      sourcesContent?: (string | null)[];
    };
    expect(map.sources.length, path).toBeGreaterThan(0);
    expect(map.sourcesContent?.length, path).toBe(map.sources.length);
    for (const content of map.sourcesContent ?? []) expect(typeof content, path).toBe("string");
  }
});
