/**
 * The README and docs/ (issue 42, "the front door"): every relative link or
 * image in README.md and docs/*.md leads to a file or folder of the
 * repository, and a link with an anchor into a Markdown file names one of its
 * headings (GitHub's slugs: lower case, spaces to `-`, punctuation other than
 * `-` and `_` removed, a repeated heading `-1`, `-2`, …). The README stays
 * under 350 lines, starts with the two commands of a fresh clone, and links
 * every docs page.
 *
 * Links are read as GitHub renders them: nothing inside fenced code blocks or
 * code spans is a link or a heading. Headings are ATX headings (`## …`); the
 * pages use no others. `http:`, `https:` and `mailto:` links are not followed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const README = "README.md";
const DOCS_PAGES = readdirSync(path.join(REPO, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => `docs/${name}`);
const PAGES = [README, ...DOCS_PAGES];

/** The text with fenced code blocks and code spans blanked out (newlines kept, so offsets and lines stay). */
function withoutCode(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  const lines = text.split("\n");
  let fence: { char: string; length: number } | undefined;
  const kept = lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      const closes = marker?.[0] === fence.char && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line);
      if (closes) fence = undefined;
      return blank(line);
    }
    if (marker && !(marker[0] === "`" && line.slice(line.indexOf(marker) + marker.length).includes("`"))) {
      fence = { char: marker[0]!, length: marker.length };
      return blank(line);
    }
    return line;
  });
  let out = kept.join("\n");
  // Code spans: a run of n backticks up to the next run of exactly n, within a paragraph.
  const run = /`+/g;
  for (let match = run.exec(out); match; match = run.exec(out)) {
    const open = match[0].length;
    const close = new RegExp(`(?<!\`)\`{${open}}(?!\`)`, "g");
    close.lastIndex = match.index + open;
    const end = close.exec(out);
    if (!end || /\n[ \t]*\n/.test(out.slice(match.index, end.index))) continue;
    const stop = end.index + open;
    out = out.slice(0, match.index) + blank(out.slice(match.index, stop)) + out.slice(stop);
    run.lastIndex = stop;
  }
  return out;
}

/** GitHub's anchor for a heading's text: lower case, punctuation but `-` and `_` removed, each space a `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown text offers, repeated headings numbered as GitHub numbers them. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(text).split("\n")) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  line: number;
  /** As written: `[text](target)`, or `[label]: target` for a definition. */
  written: string;
  target: string;
}

/** The links and images of a Markdown text: inline ones (their text may span lines) and reference definitions. */
function linksIn(text: string): Link[] {
  const plain = withoutCode(text).replace(/\\[[\]()]/g, "  ");
  const lineAt = (offset: number) => plain.slice(0, offset).split("\n").length;
  const links: Link[] = [];
  const inline = /!?\[[^[\]]*\]\(\s*(<[^>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)\s*(?:"[^"\n]*"|'[^'\n]*')?\s*\)/g;
  for (const match of plain.matchAll(inline)) {
    const at = match.index + match[0].indexOf("](");
    links.push({
      line: lineAt(at),
      written: text.slice(match.index, match.index + match[0].length),
      target: match[1]!,
    });
  }
  for (const match of plain.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    links.push({ line: lineAt(match.index), written: match[0].trim(), target: match[1]! });
  }
  return links.map((link) => ({ ...link, target: link.target.replace(/^<(.*)>$/, "$1") }));
}

const EXTERNAL = /^(?:https?|mailto):/i;
const anchorCache = new Map<string, Set<string>>();
const anchorsAt = (absolute: string) => {
  const known = anchorCache.get(absolute);
  if (known) return known;
  const anchors = anchorsOf(readFileSync(absolute, "utf8"));
  anchorCache.set(absolute, anchors);
  return anchors;
};

interface Checked {
  problems: string[];
  /** Relative links followed (anchor-only ones included), and those of them whose anchor was checked. */
  followed: number;
  anchorsChecked: number;
  /** Repository paths the links lead to. */
  targets: Set<string>;
}

/** Checks every link of `text`, held by `file` (relative to the repository): each problem as `file:line: link: why`. */
function checkLinks(file: string, text: string): Checked {
  const checked: Checked = { problems: [], followed: 0, anchorsChecked: 0, targets: new Set() };
  const from = path.join(REPO, path.dirname(file));
  for (const { line, written, target } of linksIn(text)) {
    const problem = (why: string) => checked.problems.push(`${file}:${line}: ${written.replace(/\s+/g, " ")}: ${why}`);
    if (EXTERNAL.test(target)) continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      problem("a scheme other than http:, https: or mailto:");
      continue;
    }
    if (target === "") {
      problem("no target");
      continue;
    }
    checked.followed++;
    const hash = target.indexOf("#");
    const rawPath = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const decoded = decodeURIComponent(rawPath);
    if (rawPath === "") {
      checked.anchorsChecked++;
      if (!anchorsOf(text).has(anchor!)) problem(`no heading in ${file} has the anchor #${anchor}`);
      continue;
    }
    const absolute = path.resolve(decoded.startsWith("/") ? REPO : from, `.${path.sep}${decoded}`);
    const inRepo = path.relative(REPO, absolute);
    if (inRepo.startsWith("..") || path.isAbsolute(inRepo)) {
      problem(`leads outside the repository (${absolute})`);
      continue;
    }
    if (!existsSync(absolute)) {
      problem(`no such file or folder: ${inRepo.split(path.sep).join("/")}`);
      continue;
    }
    checked.targets.add(inRepo.split(path.sep).join("/"));
    if (anchor === undefined || !absolute.endsWith(".md")) continue;
    checked.anchorsChecked++;
    if (!anchorsAt(absolute).has(anchor)) {
      const where = inRepo.split(path.sep).join("/");
      problem(`no heading in ${where} has the anchor #${anchor} (its anchors: ${[...anchorsAt(absolute)].join(", ")})`);
    }
  }
  return checked;
}

const pages = PAGES.map((file) => {
  const text = readFileSync(path.join(REPO, file), "utf8");
  return { file, text, ...checkLinks(file, text) };
});

describe("the link checker", () => {
  test("reads links as GitHub renders them, and reports each broken one with its file and line", () => {
    const text = [
      "# A page",
      "See [the README](../README.md#install-into-opencode), [a folder](../src/), [missing](nowhere.md),",
      "[a heading\nacross lines](writing-rules.md#no-such-heading) and [here](#a-page).",
      "`[in code](nowhere.md)` and",
      "```",
      "[in a fence](nowhere.md)",
      "# not a heading",
      "```",
      "![an image](rules-panel.txt) [out](../../x.md) [mail](mailto:a@b.c) [web](https://example.com/x.md)",
      "[def]: missing-too.md",
    ].join("\n");
    const checked = checkLinks("docs/fake.md", text);
    expect(checked.problems).toEqual([
      "docs/fake.md:2: [missing](nowhere.md): no such file or folder: docs/nowhere.md",
      expect.stringMatching(
        /^docs\/fake\.md:4: \[a heading across lines\]\(writing-rules\.md#no-such-heading\): no heading/,
      ),
      expect.stringMatching(/^docs\/fake\.md:10: \[out\]\(\.\.\/\.\.\/x\.md\): leads outside the repository/),
      "docs/fake.md:11: [def]: missing-too.md: no such file or folder: docs/missing-too.md",
    ]);
    expect(checked.followed).toBe(8);
  });

  test("makes GitHub's anchors", () => {
    expect(slug("Rules for one agent or one model")).toBe("rules-for-one-agent-or-one-model");
    expect(slug("The `rule` tool: what it answers (v2)")).toBe("the-rule-tool-what-it-answers-v2");
    expect(slug("Kilo Code and Roo Code modes")).toBe("kilo-code-and-roo-code-modes");
    expect(slug("snake_case and [a link](x.md) — done")).toBe("snake_case-and-a-link--done");
    expect([...anchorsOf("# A\n## A\n```\n# A\n```\n### A ##\n")]).toEqual(["a", "a-1", "a-2"]);
  });
});

describe("README.md and docs/", () => {
  test("there are docs pages, and links were found and followed on every page", () => {
    expect(DOCS_PAGES.length).toBeGreaterThanOrEqual(5);
    for (const page of pages) expect(page.followed, `${page.file}: no relative link found`).toBeGreaterThan(0);
    expect(pages.reduce((sum, page) => sum + page.followed, 0)).toBeGreaterThanOrEqual(40);
    expect(pages.reduce((sum, page) => sum + page.anchorsChecked, 0)).toBeGreaterThanOrEqual(10);
  });

  test("every relative link resolves, and every anchor names a heading", () => {
    expect(pages.flatMap((page) => page.problems)).toEqual([]);
  });

  test("the README is under 350 lines", () => {
    const readme = pages.find((page) => page.file === README)!;
    const lines = readme.text.split("\n").length - (readme.text.endsWith("\n") ? 1 : 0);
    expect(lines, `README.md has ${lines} lines`).toBeLessThan(350);
  });

  test("the README starts with the demo and the test command, as CI reads them", () => {
    const firstBlock = /^```\w*\n([^\n]*)\n([^\n]*)\n```/m.exec(readFileSync(path.join(REPO, README), "utf8"));
    expect(firstBlock?.[1]).toMatch(/^npm install && npm run demo\s/);
    expect(firstBlock?.[2]).toMatch(/^npm install && npm test\s/);
  });

  test("the README links every docs page", () => {
    const linked = pages.find((page) => page.file === README)!.targets;
    expect(
      DOCS_PAGES.filter((page) => !linked.has(page)).map((page) => `${page} is not linked from README.md`),
    ).toEqual([]);
  });
});
