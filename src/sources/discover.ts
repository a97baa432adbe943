/**
 * Discovery: ask every source for its rule files, read each one (bounded in
 * size and in files open at once) and parse it. One file's problem is a
 * warning; the other rules still load.
 */
import { parseRule } from "../rule/parse.js";
import type { Rule, RuleWarning } from "../rule/rule.js";
import { errorCode } from "./fs.js";
import type { FoundRuleFile, RuleSource, SourceContext } from "./source.js";

export interface DiscoveryContext extends SourceContext {
  /** A larger file is skipped without being read. */
  maxRuleBytes: number;
}

export interface Discovery {
  rules: Rule[];
  warnings: RuleWarning[];
  /** Every rule file found, in order, including those later skipped. */
  files: FoundRuleFile[];
}

export const DEFAULT_MAX_RULE_BYTES = 64 * 1024;
const FILES_OPEN_AT_ONCE = 32;

export async function discoverRules(context: DiscoveryContext, sources: RuleSource[]): Promise<Discovery> {
  const discovery: Discovery = { rules: [], warnings: [], files: [] };
  for (const source of sources) {
    const found = await source.find(context);
    discovery.files.push(...found.files);
    discovery.warnings.push(...found.warnings);
  }
  const parsed = await mapLimited(discovery.files, FILES_OPEN_AT_ONCE, (file) => readRule(file, context));
  for (const result of parsed) {
    discovery.warnings.push(...result.warnings);
    if (result.rule) discovery.rules.push(result.rule);
  }
  return discovery;
}

async function readRule(file: FoundRuleFile, context: DiscoveryContext) {
  const { relPath: _relPath, size, ...candidate } = file;
  if (size > context.maxRuleBytes) {
    return {
      warnings: [{ path: file.path, message: `the file is ${size} bytes, over the ${context.maxRuleBytes}-byte limit per rule; rule "${file.name}" skipped without being read` }],
    };
  }
  let bytes: Uint8Array;
  try {
    bytes = await context.fs.readFile(file.path, context.maxRuleBytes);
  } catch (error) {
    return { warnings: [{ path: file.path, message: `cannot be read (${errorCode(error) ?? String(error)}); rule "${file.name}" skipped` }] };
  }
  // The file may have grown between the folder walk and the read.
  if (bytes.byteLength > context.maxRuleBytes) {
    return { warnings: [{ path: file.path, message: `the file is over the ${context.maxRuleBytes}-byte limit per rule; rule "${file.name}" skipped` }] };
  }
  return parseRule(candidate, bytes);
}

/** `Promise.all(items.map(work))` with at most `limit` pieces of work under way, results in input order. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
