/**
 * Roo Code (discontinued; its files stay in repositories). What Roo reads,
 * from its source (https://github.com/RooCodeInc/Roo-Code,
 * src/core/prompts/sections/custom-instructions.ts and
 * src/services/roo-config/index.ts) and its documentation
 * (https://docs.roocode.com/features/custom-instructions):
 * - `~/.roo/rules/` and `.roo/rules/` at every folder from the directory up
 *   (here: the project levels, root down to the directory), every file in
 *   them and their sub-folders, in name order, but for cache and system
 *   files (`*.log`, `*.tmp`, `.DS_Store`, …);
 * - `.roorules` only when no rules folder has a file (Roo then also falls
 *   back to `.clinerules`, which the `cline` source reads);
 * - `~/.roo/rules-{mode}/` and `.roo/rules-{mode}/`, for one mode; when no
 *   such folder has a file for the mode, `.roorules-{mode}`, and without
 *   that, `.clinerules-{mode}` (a file Cline itself never reads).
 * Plain text, always on (see modes.ts: a mode's rules reach only its
 * OpenCode agent, `code` → `build`, `architect` → `plan`). Roo defines no
 * file reference syntax: none is expanded. Roo reads the legacy files in
 * its working folder only; here at every project level, as `.windsurfrules`.
 */
import { type ModeLayout, modeSource } from "./modes.js";

/** Roo's filter: cache and system files are not rules. */
const NOT_RULES =
  /(\.(DS_Store|bak|cache|crdownload|db|dmp|dump|eslintcache|lock|log|old|part|partial|pyc|pyo|stackdump|swo|swp|temp|tmp))$|^Thumbs\.db$/;

const ROO: ModeLayout = {
  source: "roo",
  tool: "Roo Code",
  dir: ".roo",
  legacy: ".roorules",
  legacyModes: [".roorules-", ".clinerules-"],
  globalModes: true,
  accept: (name) => !NOT_RULES.test(name),
};

export const rooSource = modeSource(ROO);
