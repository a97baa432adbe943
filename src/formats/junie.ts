/**
 * JetBrains Junie (https://www.jetbrains.com/help/junie/customize-guidelines.html):
 * "By default, Junie looks for agent guidelines at `.junie/guidelines.md` in
 * the root folder of the configured project" and adds them to every task:
 * always on, named `junie-guidelines`. A custom guidelines path lives in the IDE's
 * settings, not in the repository, and is not read; an `AGENTS.md` chosen
 * there is loaded by OpenCode itself. Junie defines no front matter and no
 * file reference syntax: the whole file is the rule.
 */
import { rootFileSource } from "./root-file.js";

export const junieSource = rootFileSource({
  id: "junie",
  tool: "Junie",
  path: ".junie/guidelines.md",
  name: "junie-guidelines",
});
