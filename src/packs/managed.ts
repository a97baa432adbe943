/**
 * The managed tier's folder (docs/team-packs.md, "The managed tier"): an organisation's
 * rules, put in place by an administrator's deployment tools, read in the
 * plugin's own format, above every other rule. A folder (or a rule file in
 * it) that someone other than root or the user the plugin runs as owns, or
 * that others may write to, is not read: anyone could plant rules there that
 * the user cannot switch off.
 */
import { addFolder, emptyFound, MARKDOWN_OR_MDC } from "../discover/found-rules.js";
import { errorCode, errorReason } from "../discover/fs.js";
import { managedRulesDir } from "../discover/locations.js";
import type { FoundRules, RuleSource, SourceContext } from "../discover/source.js";
import { ruleWarning } from "../rule/warnings.js";
import { managedOwners, ownerProblem } from "../rule/trust.js";
import { untrustedFiles } from "./managed-files.js";

export const managedSource: RuleSource = {
  id: "managed",
  async find(context: SourceContext): Promise<FoundRules> {
    const found = emptyFound();
    const folder = managedRulesDir(context.env);
    const owners = managedOwners(process.platform, process.getuid?.());
    let stat;
    try {
      stat = await context.fs.stat(folder);
    } catch (error) {
      const code = errorCode(error);
      // Most machines have no managed folder.
      if (code !== "ENOENT" && code !== "ENOTDIR")
        found.warnings.push(ruleWarning(folder, { code: "folder-unreadable", reason: errorReason(error) }));
      return found;
    }
    const problem = ownerProblem(folder, stat, owners);
    if (problem) {
      found.warnings.push(ruleWarning(folder, { code: "managed-not-trusted", reason: problem }));
      return found;
    }
    await addFolder(found, context, {
      folder,
      scope: "global",
      source: "managed",
      accept: MARKDOWN_OR_MDC,
      trust: "managed",
    });
    const untrusted = await untrustedFiles(
      context.fs,
      folder,
      found.files.map((file) => file.path),
    );
    for (const [path, reason] of untrusted)
      found.warnings.push(ruleWarning(path, { code: "managed-not-trusted", reason }));
    found.files = found.files.filter((file) => !untrusted.has(file.path));
    return found;
  },
};
