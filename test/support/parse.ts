/** Shared by the parse tests: one rule file's text parsed as `my-rule`. */
import { parseRule } from "../../src/rule/parse.js";
import { shown } from "./shown-warnings.js";
import { candidate, utf8 } from "./rules.js";

export const PATH = "/project/.opencode/rules/my-rule.md";

export const parsed = (text: string | Uint8Array, name = "my-rule") =>
  parseRule(candidate(name, PATH), typeof text === "string" ? utf8(text) : text);

/** Parsed, with the warnings as a person reads them. */
export const parse = (text: string | Uint8Array, name = "my-rule") => {
  const result = parsed(text, name);
  return { ...result, warnings: shown(result.warnings) };
};
