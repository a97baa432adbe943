/**
 * One rule file's bytes, read the way its source reads them: the front matter
 * through the source's mapper, the warnings of both. Pure. Discovery parses
 * every file it reads through here, and the engine a rule file a tool call is
 * about to write, so the two cannot read a file differently.
 */
import { parseRule, type FrontMatterMapper, type ParsedRule } from "../rule/parse.js";
import { ruleWarning, type RuleWarning } from "../rule/warnings.js";
import type { FoundRuleFile, MapperWarn, RuleSource } from "./source.js";

/** A rule file's own parse: its front matter read by its source's mapper, and the warnings of both. */
export function parseFile(file: FoundRuleFile, source: RuleSource, bytes: Uint8Array): ParsedRule {
  const { name, scope, path, displayPath, trust, pack } = file;
  const candidate = {
    name,
    scope,
    source: file.source,
    tool: source.tool,
    path,
    displayPath,
    trust,
    ...(pack ? { pack } : {}),
  };
  const mapperWarnings: RuleWarning[] = [];
  const warn = (facts: Parameters<MapperWarn>[0]) => mapperWarnings.push(ruleWarning(file.path, facts));
  const { mapFrontMatter, typeOf } = source;
  const mapper: FrontMatterMapper | undefined =
    mapFrontMatter || typeOf
      ? ({ data, ...front }) => ({
          data: mapFrontMatter ? mapFrontMatter.call(source, data, file, warn, front) : data,
          toolType: typeOf?.call(source, data, file, front),
        })
      : undefined;
  const parsed = parseRule(candidate, bytes, mapper, source.frontMatter?.(file));
  const warnings = [...mapperWarnings, ...parsed.warnings];
  if (parsed.rule && parsed.rule.unknownKeys.length > 0)
    warnings.push(ruleWarning(file.path, { code: "unknown-keys", keys: [...parsed.rule.unknownKeys] }));
  return parsed.rule ? { rule: parsed.rule, warnings } : { warnings };
}
