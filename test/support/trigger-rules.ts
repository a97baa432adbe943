/**
 * Rules that each reach the model by another trigger, written into a test's
 * temporary project (test/http/activation, rules-panel): `typescript` by its
 * glob `src/**\/*.ts` ("Use strict types."; src/app.ts exists), the
 * migrations rule by its keyword `migration` ("Follow the migration
 * checklist."), `security` on request ("Handling secrets": "Never log
 * secrets.").
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TempProject } from "./fake-opencode.js";

/** `migrationsFile`: where the keyword rule's file sits in the project's rules folder. */
export async function writeRulesByTrigger(project: TempProject, migrationsFile = "migrations.md"): Promise<void> {
  await project.writeRule("project", "typescript.md", '---\nglobs: "src/**/*.ts"\n---\nUse strict types.\n');
  await project.writeRule(
    "project",
    migrationsFile,
    "---\nkeywords: [migration]\n---\nFollow the migration checklist.\n",
  );
  await project.writeRule(
    "project",
    "security.md",
    "---\ndescription: Handling secrets\nalwaysApply: false\n---\nNever log secrets.\n",
  );
  await mkdir(join(project.projectDir, "src"), { recursive: true });
  await writeFile(join(project.projectDir, "src", "app.ts"), "export {};\n");
}
