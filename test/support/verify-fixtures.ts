/** Rules that forbid, for `verify`'s tests: a literal that blocks, a regular expression that warns, both for TypeScript under src/. */
export const FORBIDDING_RULES: Record<string, string> = {
  ".opencode/rules/no-console.md": '---\nglobs: src/**/*.ts\nforbid:\n  - "console.log("\n---\nLog through `src/log.ts`.\n',
  ".opencode/rules/no-any.md": "---\nglobs: src/**/*.ts\nforbid:\n  - /:\\s*any\\b/\nenforce: warn\n---\nType it; `unknown` if you must.\n",
};
