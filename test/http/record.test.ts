/**
 * The record of what the rules did, from the plugin's entry as OpenCode 1
 * starts it, the real SDK client against the fake server: kept in the state
 * folder by default, 0600 in a 0700 folder; off with `record: false` or
 * OPENCODE_RULEBOOK_RECORD=0; a folder it cannot write is said once in the
 * log, and the session gets its rules all the same.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, expect, test } from "vitest";
import {
  type FakeOpencode,
  sessionCreated,
  startPlugin,
  type TempProject,
  useFakeOpencode,
} from "../support/fake-opencode.js";

const fake = useFakeOpencode();
let server: FakeOpencode;
let project: TempProject;
const folder = () => join(project.home, ".local", "state", "opencode", "rulebook");

beforeEach(async () => {
  ({ server, project } = fake);
  await project.writeRule("project", "testing.md", "Project testing rule.\n");
});

test("by default the record is kept in the state folder: one file for the project, 0600, in a 0700 folder", async () => {
  const hooks = await startPlugin(project);
  await hooks.event?.(sessionCreated("ses_1") as never);
  await hooks.dispose?.();
  const files = readdirSync(folder());
  expect(files).toHaveLength(1);
  const file = join(folder(), files[0] ?? "");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(folder()).mode & 0o777).toBe(0o700);
  const lines = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines).toEqual([
    expect.objectContaining({ kind: "delivered", rule: "testing", session: "ses_1", trigger: "session-start" }),
  ]);
});

test("`record: false` keeps no record; nor does OPENCODE_RULEBOOK_RECORD=0", async () => {
  const off = await startPlugin(project, { record: false });
  await off.event?.(sessionCreated("ses_1") as never);
  await off.dispose?.();
  process.env.OPENCODE_RULEBOOK_RECORD = "0";
  const offByEnv = await startPlugin(project);
  await offByEnv.event?.(sessionCreated("ses_2") as never);
  await offByEnv.dispose?.();
  expect(server.prompts).toHaveLength(2);
  expect(existsSync(folder())).toBe(false);
});

test("a state folder it cannot write is said once, and every session still gets its rules", async () => {
  // A file where the folder would be: nothing can be made under it.
  mkdirSync(join(project.home, ".local"), { recursive: true });
  writeFileSync(join(project.home, ".local", "state"), "not a folder");
  const hooks = await startPlugin(project);
  for (const id of ["ses_1", "ses_2", "ses_3"]) {
    await hooks.event?.(sessionCreated(id) as never);
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  await hooks.dispose?.();
  expect(server.prompts.map((prompt) => prompt.sessionID)).toEqual(["ses_1", "ses_2", "ses_3"]);
  const said = server.logs.filter((log) => log.message.includes("record"));
  expect(said.filter((log) => log.level === "warn")).toHaveLength(1);
  expect(said[0]?.message).toContain(join(project.home, ".local", "state"));
}, 15_000);
