/** What every command shares: --help, --cwd, --version, usage errors, colours. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import { projectTree } from "../support/cli-fixtures.js";
import { ANSI, CLI, cleanEnv, REPO, hasScript, sandbox, type Sandbox, useSandbox } from "../support/cli.js";

const current = useSandbox((box) => box.write(projectTree()));
let box: Sandbox;
beforeEach(() => {
  box = current();
});

const COMMANDS = ["list", "explain", "render", "check", "add", "remove", "init"];

test("--version prints package.json's version", () => {
  const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
  for (const flag of ["--version", "-v"]) {
    const { stdout, code } = box.run([flag]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${version}\n`);
  }
});

test("--help lists every command", () => {
  const { stdout, code } = box.run(["--help"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/^Usage: opencode-rulebook \[options\] \[command\]/);
  for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^ {2}${command} `, "m"));
});

test.each(COMMANDS)("%s --help shows its usage with --cwd and --help", (command) => {
  const { stdout, code } = box.run([command, "--help"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(new RegExp(`^Usage: opencode-rulebook ${command} `));
  expect(stdout).toContain("-C, --cwd <dir>");
  expect(stdout).toContain("-h, --help");
});

test("--cwd points every command at another folder", async () => {
  const elsewhere = await sandbox();
  try {
    const list = JSON.parse(elsewhere.run(["list", "--json", "--cwd", box.project]).stdout);
    expect(list.projectRoot).toBe(box.project);
    expect(list.rules.map((rule: { name: string }) => rule.name)).toContain("db");
    expect(elsewhere.run(["explain", "--cwd", box.project, "src/db/user.ts"]).stdout).toMatch(
      /✓ db\s+≈ \d+ tokens\s+files: src\/db\/user\.ts matched src\/db\/\*\*/,
    );
    expect(elsewhere.run(["render", "--cwd", box.project]).stdout).toBe(box.run(["render"]).stdout);
    expect(elsewhere.run(["check", "--cwd", box.project]).code).toBe(0);
    expect(elsewhere.run(["add", "--cwd", box.project, "-n", "far", "Far away."]).code).toBe(0);
    expect(elsewhere.run(["remove", "--cwd", box.project, "far", "--yes"]).code).toBe(0);
    expect(elsewhere.run(["init", "--cwd", box.project]).stdout).toContain(".opencode/rules/ already exists.");
  } finally {
    await elsewhere.cleanup();
  }
});

test("usage errors exit 2 with a message on stderr", () => {
  const unknownCommand = box.run(["lsit"]);
  expect(unknownCommand.code).toBe(2);
  expect(unknownCommand.stderr).toMatch(/unknown command 'lsit'/);
  const unknownOption = box.run(["list", "--jsn"]);
  expect(unknownOption.code).toBe(2);
  expect(unknownOption.stderr).toMatch(/unknown option '--jsn'/);
  const missingFolder = box.run(["list", "--cwd", "no/such/folder"]);
  expect(missingFolder.code).toBe(2);
  expect(missingFolder.stderr).toBe("opencode-rulebook: --cwd no/such/folder: no such folder\n");
  expect(box.run(["remove"]).code).toBe(2);
});

test("off a terminal, or with NO_COLOR, output has no colour codes; FORCE_COLOR forces them", () => {
  for (const args of [["list"], ["explain", "src/db/user.ts"], ["check"]]) {
    expect(box.run(args).stdout).not.toMatch(ANSI);
    expect(box.run(args, { env: { NO_COLOR: "1" } }).stdout).not.toMatch(ANSI);
    expect(box.run(args, { env: { FORCE_COLOR: "1" } }).stdout).toMatch(ANSI);
  }
});

test.skipIf(!hasScript)("on a terminal, colours unless NO_COLOR is set", () => {
  const onTerminal = (env: Record<string, string | undefined> = {}) =>
    execFileSync("script", ["-qec", `"${process.execPath}" "${CLI}" list --cwd "${box.project}"`, "/dev/null"], {
      input: "",
      env: cleanEnv(box.home, box.xdg, { TERM: "xterm", ...env }),
      encoding: "utf8",
    });
  const coloured = onTerminal();
  expect(coloured).toMatch(ANSI);
  expect(coloured).toContain("files: src/db/**");
  const plain = onTerminal({ NO_COLOR: "1" });
  expect(plain).not.toMatch(ANSI);
  expect(plain).toContain("files: src/db/**");
});

test("installed as npm installs it (the package's bin linked into node_modules/.bin), the command runs by its name", () => {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
    bin: Record<string, string>;
    version: string;
  };
  const bin = join(box.root, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(REPO, pkg.bin["opencode-rulebook"] as string), join(bin, "opencode-rulebook"));
  const out = execFileSync("opencode-rulebook", ["--version"], {
    env: { ...cleanEnv(box.home, join(box.home, ".config")), PATH: `${bin}:${process.env.PATH}` },
    encoding: "utf8",
  });
  expect(out).toBe(`${pkg.version}\n`);
});
