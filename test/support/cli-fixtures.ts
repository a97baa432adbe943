/** A project with one rule of every activation mode, used by several command-line tests. */
export const GLOBAL_RULES: Record<string, string> = {
  "style.md": "Global: be terse in commit messages.\n",
};

export const PROJECT_RULES: Record<string, string> = {
  "db.md": "---\nglobs: src/db/**\ndescription: Database access\n---\nUse the query builder, never string-built SQL.\n",
  "migrations.md": "---\nkeywords: [migration, schema]\n---\nEvery migration must be reversible.\n",
  "release.md": "---\ndescription: How to cut a release\nalwaysApply: false\n---\nTag, then publish from CI.\n",
  "secret.md": "---\nalwaysApply: false\n---\nThe staging password is in the vault.\n",
  "testing.md": "Run the tests with npm test before saying you are done.\n",
};

export const PROJECT_FILES: Record<string, string> = {
  "src/db/user.ts": "export const user = 1;\n",
  "src/app.ts": "export {};\n",
  "package.json": "{}\n",
};

/** Relative to the sandbox project: rules under .opencode/rules plus project files. */
export function projectTree(rules: Record<string, string> = PROJECT_RULES): Record<string, string> {
  const tree: Record<string, string> = { ...PROJECT_FILES };
  for (const [name, text] of Object.entries(rules)) tree[`.opencode/rules/${name}`] = text;
  return tree;
}
