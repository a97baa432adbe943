/**
 * `packs add` and `packs remove` in OpenCode's config: the text with a spec
 * added to (or removed from) the plugin's `packs` option, everything else as
 * the user wrote it (comments, order, layout). The caller reads and writes
 * the file.
 *
 * The edits are made from jsonc-parser's tree by hand: its `modify` lays the
 * whole edited line out again (`[["opencode-rulebook", {…}]]` becomes ten
 * lines), and 3.3.1 breaks the text when it removes an array's last item.
 */
import {
  applyEdits,
  findNodeAtLocation,
  parseTree,
  printParseErrorCode,
  type Edit,
  type Node,
  type ParseError,
} from "jsonc-parser";
import { PACKAGE_NAME } from "../plugin-spec.js";

type ConfigEdit = { text: string; changed: boolean } | { error: string };

/**
 * The plugin's entry OpenCode reads its options from: the last that names it, in `plugin` (OpenCode 1) or `plugins`
 * (OpenCode 2).
 */
type Entry = { node: Node; list: "plugin" | "plugins" };

/** The config text with `spec` added to the plugin's `packs` option (no duplicate), or why it cannot be. */
export function addPackToConfig(
  text: string,
  spec: string,
  isRulebookEntry: (entrySpec: string) => boolean,
): ConfigEdit {
  if (text.trim() === "") return { text: newConfigText(spec), changed: true };
  const tree = readTree(text);
  if ("error" in tree) return tree;
  const found = lastRulebookEntry(tree.root, isRulebookEntry);
  if ("error" in found) return found;
  const packs = `[${JSON.stringify(spec)}]`;
  const entry = found.entry;
  if (!entry) {
    const tuple = `[${JSON.stringify(PACKAGE_NAME)}, { "packs": ${packs} }]`;
    const plugin = findNodeAtLocation(tree.root, ["plugin"]);
    const plugins = findNodeAtLocation(tree.root, ["plugins"]);
    if (plugin || !plugins)
      return edited(
        text,
        plugin ? appendItem(text, plugin, tuple) : addProperty(text, tree.root, "plugin", `[${tuple}]`),
      );
    return edited(
      text,
      appendItem(text, plugins, `{ "package": ${JSON.stringify(PACKAGE_NAME)}, "options": { "packs": ${packs} } }`),
    );
  }
  const { node, list } = entry;
  const written = text.slice(node.offset, node.offset + node.length);
  if (node.type === "string") {
    const replacement =
      list === "plugin"
        ? `[${written}, { "packs": ${packs} }]`
        : `{ "package": ${written}, "options": { "packs": ${packs} } }`;
    return edited(text, { offset: node.offset, length: node.length, content: replacement });
  }
  const options = optionsNode(node);
  if (!options) {
    const made = `{ "packs": ${packs} }`;
    return edited(
      text,
      node.type === "array" ? appendItem(text, node, made) : addProperty(text, node, "options", made),
    );
  }
  if (options.type !== "object")
    return { error: `the ${PACKAGE_NAME} entry's options are not an object: fix the config by hand` };
  const packsList = findNodeAtLocation(options, ["packs"]);
  if (!packsList) return edited(text, addProperty(text, options, "packs", packs));
  if (packsList.type !== "array")
    return { error: `the ${PACKAGE_NAME} entry's "packs" option is not a list: fix the config by hand` };
  if (packsList.children?.some((item) => item.value === spec)) return { text, changed: false };
  return edited(text, appendItem(text, packsList, JSON.stringify(spec)));
}

/**
 * The config text without `spec` in the plugin's `packs` option (`"packs": []` when it was the last), or why it cannot
 * be edited.
 */
export function removePackFromConfig(
  text: string,
  spec: string,
  isRulebookEntry: (entrySpec: string) => boolean,
): ConfigEdit {
  let current = text;
  for (;;) {
    if (current.trim() === "") return { text: current, changed: current !== text };
    const tree = readTree(current);
    if ("error" in tree) return tree;
    const found = lastRulebookEntry(tree.root, isRulebookEntry);
    if ("error" in found) return found;
    const options = found.entry && found.entry.node.type !== "string" ? optionsNode(found.entry.node) : undefined;
    const packs = options?.type === "object" ? findNodeAtLocation(options, ["packs"]) : undefined;
    if (packs && packs.type !== "array")
      return { error: `the ${PACKAGE_NAME} entry's "packs" option is not a list: fix the config by hand` };
    const index = packs?.children?.findIndex((item) => item.value === spec) ?? -1;
    if (!packs || index === -1) return { text: current, changed: current !== text };
    // One at a time: a spec written twice goes too, each removal read from a fresh tree.
    current = applyEdits(current, removeItem(current, packs, index));
  }
}

function newConfigText(spec: string): string {
  const plugin = `[[${JSON.stringify(PACKAGE_NAME)}, { "packs": [${JSON.stringify(spec)}] }]]`;
  return `{\n  "$schema": "https://opencode.ai/config.json",\n  "plugin": ${plugin}\n}\n`;
}

function readTree(text: string): { root: Node } | { error: string } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  const error = errors[0];
  if (error) {
    const reason = printParseErrorCode(error.error)
      .replace(/(?<=[a-z])(?=[A-Z])/g, " ")
      .toLowerCase();
    return { error: `the config is not JSON with comments: ${reason} on line ${lineAt(text, error.offset)}` };
  }
  if (root?.type !== "object")
    return { error: 'the config is not a JSON object: it should look like { "plugin": [...] }' };
  return { root };
}

function lastRulebookEntry(
  root: Node,
  isRulebookEntry: (entrySpec: string) => boolean,
): { entry?: Entry } | { error: string } {
  let entry: Entry | undefined;
  for (const list of ["plugin", "plugins"] as const) {
    const node = findNodeAtLocation(root, [list]);
    if (!node) continue;
    if (node.type !== "array") return { error: `the config's "${list}" is not a list: fix it by hand` };
    for (const item of node.children ?? []) {
      const spec =
        item.type === "array"
          ? item.children?.[0]?.value
          : item.type === "object"
            ? findNodeAtLocation(item, ["package"])?.value
            : item.value;
      if (typeof spec === "string" && isRulebookEntry(spec)) entry = { node: item, list };
    }
  }
  return { entry };
}

/** The options of a `[spec, options]` or `{ package, options }` entry. */
function optionsNode(entry: Node): Node | undefined {
  return entry.type === "array" ? entry.children?.[1] : findNodeAtLocation(entry, ["options"]);
}

const edited = (text: string, edit: Edit | Edit[]): ConfigEdit => ({
  text: applyEdits(text, [edit].flat()),
  changed: true,
});

/** Edits that append `item` to an array: on a line of its own when the array spreads over lines, else after `, `. */
function appendItem(text: string, array: Node, item: string): Edit[] {
  const last = array.children?.at(-1);
  return last ? appendAfter(text, array, last, item) : [{ offset: array.offset + 1, length: 0, content: item }];
}

/** Edits that add `"name": value` to an object, laid out like its other properties. */
function addProperty(text: string, object: Node, name: string, value: string): Edit[] {
  const property = `${JSON.stringify(name)}: ${value}`;
  const last = object.children?.at(-1);
  if (last) return appendAfter(text, object, last, property);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const inner = object.parent ? ` ${property} ` : `${eol}  ${property}${eol}`;
  // `{}` or `{ }` is filled; one holding a comment keeps it.
  const blank = text.slice(object.offset + 1, object.offset + object.length - 1).trim() === "";
  return [{ offset: object.offset + 1, length: blank ? object.length - 2 : 0, content: inner }];
}

/** What may follow an item on its line: a comma, a comment (which stays with the item). */
const LINE_TAIL = /^[ \t]*(,?)[ \t]*(?:\/\/[^\n]*|\/\*(?:(?!\*\/)[^\n])*\*\/[ \t]*)?$/;

/**
 * Edits that put `addition` after `last`: `, addition` when `last` is on the
 * container's first line; else a line of its own with `last`'s indent, after
 * a comment that ends `last`'s line (it describes `last`).
 */
function appendAfter(text: string, container: Node, last: Node, addition: string): Edit[] {
  const end = last.offset + last.length;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  if (lineStart <= container.offset) return [{ offset: end, length: 0, content: `, ${addition}` }];
  const eol = text[lineStart - 2] === "\r" ? "\r\n" : "\n";
  const indent = /^[ \t]*/.exec(text.slice(lineStart, last.offset))?.[0] ?? "";
  const newline = text.indexOf("\n", end);
  const lineEnd = newline === -1 ? text.length : text[newline - 1] === "\r" ? newline - 1 : newline;
  const tail = LINE_TAIL.exec(text.slice(end, lineEnd));
  if (!tail) return [{ offset: end, length: 0, content: `,${eol}${indent}${addition}` }];
  const line: Edit = { offset: lineEnd, length: 0, content: `${eol}${indent}${addition}` };
  return tail[1] ? [line] : [{ offset: end, length: 0, content: "," }, line];
}

/**
 * Edits that remove an array's item `index` with the separator beside it; an item on a line of its own takes the line
 * (and its comment).
 */
function removeItem(text: string, array: Node, index: number): Edit[] {
  const items = array.children ?? [];
  const item = items[index] as Node;
  const [previous, next] = [items[index - 1], items[index + 1]];
  const [end, close] = [item.offset + item.length, array.offset + array.length - 1];
  const previousEnd = previous ? previous.offset + previous.length : array.offset + 1;
  const remove = (from: number, to: number): Edit => ({ offset: from, length: to - from, content: "" });
  // The only item: the brackets close up, `"packs": []`, unless a comment is inside.
  const around = `${text.slice(array.offset + 1, item.offset)}${text.slice(end, close)}`.trim();
  if (!previous && !next && (around === "" || around === ",")) return [remove(array.offset + 1, close)];
  const lineStart = text.lastIndexOf("\n", item.offset) + 1;
  const newline = text.indexOf("\n", end);
  const ownLine = lineStart >= previousEnd && text.slice(lineStart, item.offset).trim() === "" && newline !== -1;
  if (ownLine && LINE_TAIL.test(text.slice(end, newline).replace(/\r$/, ""))) {
    const comma = previous && !next ? commaBetween(text, previousEnd, lineStart) : undefined;
    return comma === undefined
      ? [remove(lineStart, newline + 1)]
      : [remove(comma, comma + 1), remove(lineStart, newline + 1)];
  }
  if (next) return [remove(item.offset, next.offset)];
  if (previous) return [remove(previousEnd, end)];
  const comma = commaBetween(text, end, close);
  return [remove(item.offset, comma === undefined ? end : comma + 1)];
}

/** The offset of the comma between two items (only comments and spaces are there besides), if any. */
function commaBetween(text: string, from: number, to: number): number | undefined {
  for (let index = from; index < to; index++) {
    if (text.startsWith("//", index)) index = text.indexOf("\n", index) === -1 ? to : text.indexOf("\n", index);
    else if (text.startsWith("/*", index)) {
      const end = text.indexOf("*/", index + 2);
      if (end === -1) return undefined;
      index = end + 1;
    } else if (text[index] === ",") return index;
  }
  return undefined;
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}
