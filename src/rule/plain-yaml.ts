/**
 * The front matter most rule files have, read without js-yaml: one
 * `key: value` line per key, each value a plain word or phrase, a quoted
 * string or a flow list of plain words (`description: …`, `alwaysApply:
 * true`, `globs: src/**`, `keywords: [a, b]`). Such a block reads here as
 * js-yaml reads it (test/rule/plain-yaml.test.ts compares the two); any
 * other block, or any line this does not know, is js-yaml's (undefined).
 *
 * Why: at a first start every rule file's front matter is parsed, and
 * js-yaml's general loader (its state, its node objects, its checks of every
 * character) cost more than the rest of the parse at 1,000 rules.
 */

/** Only printable ASCII and newlines: anything else (tabs, control or non-ASCII characters) is js-yaml's to judge. */
const PLAIN_TEXT = /^[\n\x20-\x7e]*$/;
/** A top-level key, then `: ` and a value on the same line. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*): +(.*)$/;
/** A comment line or a blank one. */
const NOTHING = /^ *(?:#.*)?$/;
/** A list item: a word of letters, digits and `_ . / -`, starting with a letter. */
const ITEM = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

/** Words YAML reads as something other than a string (js-yaml's default schema), with what they read as. */
const RESOLVED = new Map<string, boolean | null>([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
  ["null", null],
  ["Null", null],
  ["NULL", null],
]);

/** The block's keys and values as js-yaml reads them; undefined when the block is not of the plain kind. */
export function readPlainYaml(block: string): Record<string, unknown> | undefined {
  if (!PLAIN_TEXT.test(block)) return undefined;
  const data: Record<string, unknown> = {};
  let keys = 0;
  for (const line of block.split("\n")) {
    const found = KEY_LINE.exec(line);
    if (!found) {
      if (NOTHING.test(line)) continue;
      return undefined;
    }
    const key = found[1] as string;
    // A key YAML resolves (`true:` is the key "true" only once converted), `__proto__`, or a duplicate.
    if (RESOLVED.has(key) || key === "__proto__" || Object.hasOwn(data, key)) return undefined;
    const value = plainValue((found[2] as string).trimEnd());
    if (value === undefined) return undefined;
    data[key] = value.read;
    keys++;
  }
  return keys > 0 ? data : undefined;
}

/** A value of the kinds known here, boxed (it may be null); undefined for any other. */
function plainValue(text: string): { read: unknown } | undefined {
  if (text === "") return undefined;
  const first = text[0] as string;
  if (first === "'") return singleQuoted(text);
  if (first === '"') {
    const inner = text.slice(1, -1);
    return text.length >= 2 && text.endsWith('"') && !/["\\]/.test(inner) ? { read: inner } : undefined;
  }
  if (first === "[") return flowList(text);
  // A plain scalar starting with a letter, `_` or `/` is a string unless it is one of the words YAML resolves;
  // every other first character may be an indicator, a number or a date.
  if (!/^[A-Za-z_/]/.test(first)) return undefined;
  // A comment after the value, or a second `key:` on the line, is js-yaml's to read.
  if (text.includes(" #") || text.includes(": ") || text.endsWith(":")) return undefined;
  const resolved = RESOLVED.get(text);
  return { read: resolved === undefined ? text : resolved };
}

function singleQuoted(text: string): { read: string } | undefined {
  if (text.length < 2 || !text.endsWith("'")) return undefined;
  const inner = text.slice(1, -1);
  // Every quote inside is doubled: a lone one would end the string early.
  if (inner.replace(/''/g, "").includes("'")) return undefined;
  return { read: inner.replace(/''/g, "'") };
}

function flowList(text: string): { read: string[] } | undefined {
  if (!text.endsWith("]")) return undefined;
  const inner = text.slice(1, -1);
  if (inner.trim() === "") return { read: [] };
  const items: string[] = [];
  for (const part of inner.split(",")) {
    const item = part.trim();
    if (!ITEM.test(item) || RESOLVED.has(item)) return undefined;
    items.push(item);
  }
  return { read: items };
}
