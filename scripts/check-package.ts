/**
 * `npm run lint`'s check of the package as it would be published (run with tsx):
 * packs it once as `npm publish` does (npm runs `prepare`, the build, first),
 * then lints that tarball with publint (`--strict`: a warning fails too) and
 * @arethetypeswrong/cli (`--profile esm-only`: the exports `.`, `./server`
 * and `./tui` resolve to JavaScript and to types under Node's ESM and
 * bundlers). Offline: packing is local, and neither tool fetches anything
 * for a tarball. Prints the tools' output when one fails and exits 1.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A dev dependency's command, run by this Node (no shell, no npx, no registry). */
function binOf(name: string, bin: string): string {
  const dir = path.join(ROOT, "node_modules", name);
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { bin: Record<string, string> };
  return path.join(dir, manifest.bin[bin] as string);
}

function run(command: string, args: string[]): { ok: boolean; stdout: string; output: string } {
  // Plain text: the output is read in a log (picocolors colours whenever FORCE_COLOR is set, even to 0).
  const { FORCE_COLOR: _colour, ...env } = process.env;
  const done = spawnSync(command, args, {
    cwd: ROOT,
    encoding: "utf8",
    shell: process.platform === "win32" && command === "npm",
    env: { ...env, NO_COLOR: "1" },
  });
  return {
    ok: done.status === 0,
    stdout: done.stdout ?? "",
    output: `${done.stdout ?? ""}${done.stderr ?? ""}${done.error ? String(done.error) : ""}`,
  };
}

const destination = mkdtempSync(path.join(tmpdir(), "rulebook-pack-"));
let failed = false;
try {
  const packed = run("npm", ["pack", "--json", "--pack-destination", destination]);
  // `--json` keeps stdout for the list; the build's output goes to stderr.
  const first = packed.ok ? (JSON.parse(packed.stdout) as { filename: string; entryCount: number }[])[0] : undefined;
  if (!first) {
    console.error(`package: npm pack failed\n${packed.output}`);
    failed = true;
  } else {
    const tarball = path.join(destination, first.filename);
    const checks = [
      { name: "publint --strict", ...run(process.execPath, [binOf("publint", "publint"), "--strict", tarball]) },
      {
        name: "attw --profile esm-only",
        ...run(process.execPath, [
          binOf("@arethetypeswrong/cli", "attw"),
          tarball,
          "--profile",
          "esm-only",
          "--format",
          "ascii",
        ]),
      },
    ];
    for (const check of checks.filter((check) => !check.ok))
      console.error(`package: ${check.name} failed on ${first.filename}\n${check.output}`);
    failed = checks.some((check) => !check.ok);
    if (!failed)
      console.log(
        `package: ${first.filename} (${first.entryCount} files) passes ${checks.map((check) => check.name).join(" and ")}`,
      );
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
