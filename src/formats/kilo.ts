/**
 * Kilo Code (https://kilo.ai/docs/customize/custom-rules, "Rule Location"
 * and "Rule Loading Order"; its source, https://github.com/Kilo-Org/kilocode,
 * src/core/prompts/sections/custom-instructions.ts):
 * - `~/.kilocode/rules/` (global) and `.kilocode/rules/` (project), every
 *   file in them and their sub-folders (Kilo filters none by name);
 * - `.kilocoderules` only when no rules folder has a file (Kilo falls back
 *   to `.roo/rules`, `.roorules` and `.clinerules` before and after it:
 *   those are the `roo` and `cline` sources' files);
 * - `.kilocode/rules-{mode}/` for one mode ("mode-specific rules are only
 *   supported at the project level"), and when it has no file for the mode,
 *   `.kilocoderules-{mode}`.
 * Plain text, always on (see modes.ts: a mode's rules reach only its
 * OpenCode agent, `code` → `build`, `architect` → `plan`). Kilo defines no
 * file reference syntax: none is expanded. Kilo reads its working folder's
 * `.kilocode` only; here every project level's, root down to the directory.
 */
import { type ModeLayout, modeSource } from "./modes.js";

const KILO: ModeLayout = {
  source: "kilo",
  tool: "Kilo Code",
  dir: ".kilocode",
  legacy: ".kilocoderules",
  legacyModes: [".kilocoderules-"],
  globalModes: false,
  accept: () => true,
};

export const kiloSource = modeSource(KILO);
