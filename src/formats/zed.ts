/**
 * Zed (https://zed.dev/docs/ai/rules, "`.rules` files"): a `.rules` file at
 * the project root is included in every agent thread: always on, named
 * `rules`. Zed reads only the first of `.rules`, `.cursorrules`,
 * `.windsurfrules`, `.clinerules`, `.github/copilot-instructions.md`,
 * `AGENT.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` it finds; the others are
 * other tools' files, read by their own sources (or by OpenCode itself), so
 * this source reads `.rules` alone and no file is read twice. A `.rules` file
 * has no front matter in Zed: it is always on whatever it begins with. Zed
 * defines no file reference syntax in it.
 */
import { rootFileSource } from "./root-file.js";

export const zedSource = rootFileSource({ id: "zed", tool: "Zed", path: ".rules", name: "rules" });
