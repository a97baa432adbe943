/**
 * A command as the shell reads it: continuations joined, each simple command
 * of a list or pipeline (and of substitutions, subshells, heredocs) a unit
 * beside the whole text, within bounds whatever the text. And the force-push
 * pattern of docs/rules-that-hold.md, through the real RE2 scan.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { commandUnits, MAX_SCANNED, MAX_UNITS } from "../../src/enforce/shell-commands.js";
import { readForbidPattern } from "../../src/pattern/forbid-pattern.js";
import { patternScanner } from "../../src/pattern/pattern-scan.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** The command with its continuations removed, for text without single quotes, comments or heredocs: a backslash escapes the next character. */
const joinedRef = (command: string) =>
  command.replace(/\\(\r\n|\n|[\s\S])/g, (escaped, next: string) => (next.endsWith("\n") ? "" : escaped));

describe("line continuations", () => {
  test("a backslash-newline is removed: the whole command is joined, exactly", () => {
    expect(commandUnits("git push \\\n  --force")[0]).toBe("git push   --force");
    expect(commandUnits("git push \\\r\n--force")[0]).toBe("git push --force");
    expect(commandUnits("git \\\npush \\\n-f")[0]).toBe("git push -f");
  });

  test("the command as written stays a unit when joining changed it, so nothing matched before is missed", () => {
    expect(commandUnits("git push \\\n  --force")).toEqual(["git push   --force", "git push \\\n  --force"]);
    expect(commandUnits("git push --force")).toEqual(["git push --force"]);
  });

  test("inside single quotes a backslash-newline stays; inside double quotes it is joined", () => {
    expect(commandUnits("echo 'a \\\nb'; c")).toEqual(["echo 'a \\\nb'; c", "echo 'a \\\nb'", "c"]);
    expect(commandUnits('echo "a \\\nb"')[0]).toBe('echo "a b"');
  });

  test("an escaped backslash before a newline is no continuation", () => {
    expect(commandUnits("echo a\\\\\nls")).toEqual(["echo a\\\\\nls", "echo a\\\\", "ls"]);
  });

  test("a comment is not continued: its backslash-newline stays, the next line is a command", () => {
    expect(commandUnits("echo hi # it's a \\\ngit push -f")).toEqual([
      "echo hi # it's a \\\ngit push -f",
      "echo hi # it's a \\",
      "git push -f",
    ]);
  });
});

describe("lists and pipelines", () => {
  test("each simple command after the whole text: ;, &&, ||, |, &, newlines", () => {
    expect(commandUnits("cd x && git push -f")).toEqual(["cd x && git push -f", "cd x", "git push -f"]);
    expect(commandUnits("a; b | c || d")).toEqual(["a; b | c || d", "a", "b", "c", "d"]);
    expect(commandUnits("a & b\nc\r\nd")).toEqual(["a & b\nc\r\nd", "a", "b", "c", "d"]);
  });

  test("quotes and escapes are not split: the whole text is still a unit", () => {
    expect(commandUnits('echo "a; git push --force"')).toEqual(['echo "a; git push --force"']);
    expect(commandUnits("echo 'a && b' | c")).toEqual(["echo 'a && b' | c", "echo 'a && b'", "c"]);
    expect(commandUnits("echo a\\;b")).toEqual(["echo a\\;b"]);
    expect(commandUnits("echo $'it\\'s; x'; y")).toEqual(["echo $'it\\'s; x'; y", "echo $'it\\'s; x'", "y"]);
  });

  test("redirections are not separators", () => {
    expect(commandUnits("git push -f 2>&1 | tee log")).toEqual([
      "git push -f 2>&1 | tee log",
      "git push -f 2>&1",
      "tee log",
    ]);
    expect(commandUnits("a &>/dev/null; b >| f <&0")).toEqual([
      "a &>/dev/null; b >| f <&0",
      "a &>/dev/null",
      "b >| f <&0",
    ]);
  });

  test("duplicates and empty units are dropped, units are trimmed", () => {
    expect(commandUnits("  a ;; a ;  ;& a  ")).toEqual(["a ;; a ;  ;& a", "a"]);
    expect(commandUnits("")).toEqual([]);
    expect(commandUnits(" \n ; ")).toEqual([";"]);
  });
});

describe("nested commands", () => {
  test("$(…), backticks, <(…) and subshells: their commands are units too", () => {
    expect(commandUnits("echo $(git push -f)")).toEqual(["echo $(git push -f)", "git push -f"]);
    expect(commandUnits("x=`cd a; git push -f`")).toEqual(["x=`cd a; git push -f`", "cd a", "git push -f"]);
    expect(commandUnits("(cd a && git push -f) | diff <(b) -")).toEqual([
      "(cd a && git push -f) | diff <(b) -",
      "cd a",
      "git push -f",
      "(cd a && git push -f)",
      "b",
      "diff <(b) -",
    ]);
    expect(commandUnits('echo "$(git push -f | x)"')).toEqual(['echo "$(git push -f | x)"', "git push -f", "x"]);
  });

  test("groups and compound commands: a leading keyword is taken off", () => {
    expect(commandUnits("{ git push -f; }")).toEqual(["{ git push -f; }", "git push -f"]);
    expect(commandUnits("if ! git push -f; then echo; fi")).toEqual([
      "if ! git push -f; then echo; fi",
      "git push -f",
      "echo",
    ]);
    expect(commandUnits("for b in a c; do git push -f; done")).toEqual([
      "for b in a c; do git push -f; done",
      "for b in a c",
      "git push -f",
    ]);
    expect(commandUnits("case $x in a) git push -f;; esac")).toEqual([
      "case $x in a) git push -f;; esac",
      "case $x in a",
      "git push -f",
    ]);
  });

  test("unclosed quotes and parentheses end with the text", () => {
    expect(commandUnits("a; echo 'b; c")).toEqual(["a; echo 'b; c", "a", "echo 'b; c"]);
    expect(commandUnits("a; $(b; c")).toEqual(["a; $(b; c", "a", "b", "$(b; c", "c"]);
  });
});

describe("heredocs", () => {
  test("each body line is a unit, not split further; the body ends at its word", () => {
    expect(commandUnits("bash <<EOF\ngit push -f; ls\nEOF\nls")).toEqual([
      "bash <<EOF\ngit push -f; ls\nEOF\nls",
      "bash <<EOF",
      "ls",
      "git push -f; ls",
    ]);
    expect(commandUnits("bash <<-EOF\n\tgit push -f\n\tEOF\nls")).toEqual([
      "bash <<-EOF\n\tgit push -f\n\tEOF\nls",
      "bash <<-EOF",
      "ls",
      "git push -f",
    ]);
  });

  test("a body's quotes are text: an apostrophe hides nothing after the heredoc", () => {
    const command = "cat > f <<EOF\ndon't\nEOF\ngit push \\\n  --force";
    expect(commandUnits(command)).toEqual([
      "cat > f <<EOF\ndon't\nEOF\ngit push   --force",
      command,
      "cat > f <<EOF",
      "git push   --force",
      "don't",
    ]);
  });

  test("an unquoted word's body is joined; a quoted word's body is kept as written", () => {
    expect(commandUnits("bash <<EOF\ngit push \\\n-f\nEOF")).toContain("git push -f");
    expect(commandUnits("cat <<'EOF'\na \\\nb\nEOF")).toEqual([
      "cat <<'EOF'\na \\\nb\nEOF",
      "cat <<'EOF'",
      "a \\",
      "b",
    ]);
  });

  test("a here-string is no heredoc", () => {
    expect(commandUnits("cat <<<x\ngit push -f")).toEqual(["cat <<<x\ngit push -f", "cat <<<x", "git push -f"]);
  });
});

describe("bounds", () => {
  test(`at most ${MAX_UNITS} units, the whole text first`, () => {
    const command = Array.from({ length: 1000 }, (_, i) => `c${i}`).join("; ");
    const units = commandUnits(command);
    expect(units).toHaveLength(MAX_UNITS);
    expect(units[0]).toBe(command);
  });

  test(`deep nesting: the units hold at most ${MAX_SCANNED} times the command`, () => {
    for (const command of ["$(".repeat(10_000), `${"$(a; ".repeat(5000)}${")".repeat(5000)}`, "`a;".repeat(10_000)]) {
      const units = commandUnits(command);
      expect(units[0]).toBe(command);
      expect(units.reduce((sum, unit) => sum + unit.length, 0)).toBeLessThanOrEqual(MAX_SCANNED * command.length);
    }
  });

  test("property: never throws on any text; units are non-empty, trimmed, distinct, bounded", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 200 }),
          fc.string({ unit: fc.constantFrom(..."\\\n\r'\"`$()#<-; &|{}EOF a"), maxLength: 200 }),
        ),
        (command) => {
          const units = commandUnits(command);
          expect(units.length).toBeLessThanOrEqual(MAX_UNITS);
          expect(new Set(units).size).toBe(units.length);
          for (const unit of units) expect(unit === unit.trim() && unit !== "").toBe(true);
          expect(units.reduce((sum, unit) => sum + unit.length, 0)).toBeLessThanOrEqual(MAX_SCANNED * command.length);
          // Every unit but the command as written is a part of the joined whole, which comes first.
          const [first = "", ...rest] = units;
          for (const unit of rest) if (unit !== command.trim()) expect(first).toContain(unit);
          if (!command.includes("\\") && command.trim() !== "") expect(first).toBe(command.trim());
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("property: without single quotes, comments and heredocs, the first unit is the command with its continuations removed", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("\\", "\n", "\r\n", '"', "`", "$(", ")", ";", "&", "|", " ", "a", "git push -f"),
          maxLength: 60,
        }),
        (command) => {
          const joined = joinedRef(command).trim();
          const units = commandUnits(command);
          if (joined !== "") expect(units[0]).toBe(joined);
          for (const unit of units.slice(1)) if (unit !== command.trim()) expect(joined).toContain(unit);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("property: each command of a plain list is a unit, whatever separates them", () => {
    const word = fc.constantFrom("git", "push", "-f", "--force", "ls", "cd", "x", "a=1", "2>&1");
    const simple = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(" "));
    const separator = fc.constantFrom(";", " && ", " || ", " | ", " & ", "\n", " \\\n ; ");
    fc.assert(
      fc.property(fc.array(fc.tuple(simple, separator), { minLength: 1, maxLength: 12 }), (parts) => {
        const units = commandUnits(parts.map(([simple, separator]) => simple + separator).join(""));
        for (const [simple] of parts) expect(units).toContain(simple);
      }),
    );
  });
});

describe("the force-push pattern of docs/rules-that-hold.md, as the scan matches it", () => {
  const patternIn = (file: string) =>
    /^forbidCommands:\n\s+- (\/.+\/)$/m.exec(readFileSync(`${REPO}/${file}`, "utf8"))?.[1];
  const written = patternIn("docs/rules-that-hold.md");
  const read = readForbidPattern(written ?? "");
  if (!("pattern" in read))
    throw new Error(`docs/rules-that-hold.md's pattern ${written}: ${"problem" in read ? read.problem : ""}`);
  const scan = patternScanner([read.pattern]);
  const caught = (command: string) => scan(commandUnits(command), { now: () => 0, deadline: Infinity }).hits.length > 0;

  test("the README and rules-examples/logging.md show the same pattern", () => {
    expect(patternIn("README.md")).toBe(written);
    expect(patternIn("rules-examples/logging.md")).toBe(written);
  });

  test("it catches a force-push wherever the flag is, joined, or after cd", () => {
    for (const command of [
      "git push origin main --force",
      "git push --force",
      "git push -f origin main",
      "git push \\\n --force",
      "cd repo && git push --force",
      "git  push origin HEAD -f",
    ]) {
      expect(caught(command), command).toBe(true);
    }
  });

  test("it lets a plain push, --force-with-lease, and mere words through", () => {
    for (const command of [
      "git push origin main",
      "git push --force-with-lease",
      "git push --force-with-lease origin main",
      "echo git pushed",
      "git push --follow-tags",
    ]) {
      expect(caught(command), command).toBe(false);
    }
  });
});
