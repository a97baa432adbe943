/** Warnings as a person reads them, for tests that check the words as well as the codes. */
import { warningText, type RuleWarning } from "../../src/rule/warnings.js";

/** A warning as the log and `list` show it: the file, the line when there is one, the text. */
export interface ShownWarning {
  path: string;
  line?: number;
  message: string;
}

export function shown(warnings: readonly RuleWarning[]): ShownWarning[] {
  return warnings.map((warning) => ({ path: warning.path, line: warning.line, message: warningText(warning) }));
}
