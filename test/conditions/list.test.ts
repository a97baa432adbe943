/**
 * The condition kinds' list (issue 42): what every kind of it must hold for
 * the code that loops over it, and the front matter each reads.
 */
import { describe, expect, test } from "vitest";
import {
  ACTIVATING,
  CONDITIONS,
  KINDS,
  NARROWING,
  conditionOf,
  factsIn,
  kindNamed,
  kindOfKey,
  kindOfMet,
} from "../../src/conditions/list.js";
import { parse } from "../support/parse.js";

describe("the list", () => {
  test("triggers first, then scopes; each role's kinds in the list's order", () => {
    expect(CONDITIONS.map(({ kind, role }) => [kind, role])).toEqual([
      ["files", "activates"],
      ["keywords", "activates"],
      ["content", "activates"],
      ["agents", "narrows"],
      ["models", "narrows"],
      ["branches", "narrows"],
    ]);
    expect(ACTIVATING.map(({ kind }) => kind)).toEqual(["files", "keywords", "content"]);
    expect(NARROWING.map(({ kind }) => kind)).toEqual(["agents", "models", "branches"]);
  });

  test("no two kinds share a name, a key, a stored met tag or a fact: each is found by it", () => {
    const keys = KINDS.flatMap((kind) => kind.keys);
    expect(new Set(keys).size).toBe(keys.length);
    for (const kind of KINDS) {
      expect(kindNamed(kind.kind)).toBe(kind);
      for (const key of kind.keys) expect(kindOfKey(key)).toBe(kind);
    }
    for (const kind of ACTIVATING) expect(kindOfMet(kind.metKind)).toBe(kind);
    expect(new Set(NARROWING.map(({ fact }) => fact)).size).toBe(NARROWING.length);
    expect(NARROWING.map(({ fact }) => fact)).toEqual(["agent", "model", "branch"]);
  });

  test("every kind's keys are the common reader's: none is an unknown key", () => {
    for (const key of KINDS.flatMap((kind) => kind.keys)) {
      const { rule } = parse(`---\n${key}: x\n---\nBody`);
      expect(rule?.unknownKeys, key).toEqual([]);
    }
  });

  test("the aliases each kind reads: one value, as its own key gives it", () => {
    const read = (text: string) => parse(`---\n${text}\n---\nBody`).rule?.conditions;
    expect(read("globs: a\npaths: b\napplyTo: c\nfileMatchPattern: d")).toEqual({ files: ["a", "b", "c", "d"] });
    expect(read("keywords: a\ntopics: b, c")).toEqual({ keywords: ["a", "b", "c"] });
    expect(read("fileContains: a\nregex: ^b")?.content?.map(({ written }) => written)).toEqual(["a", "^b"]);
    expect(read("agents: plan\nmodels: openai/*")).toEqual({ agents: ["plan"], models: ["openai/*"] });
  });

  test("a rule's value of a kind: an empty list is none", () => {
    const [files] = ACTIVATING;
    expect(files && conditionOf({ conditions: { files: [] } }, files)).toBeUndefined();
    expect(files && conditionOf({ conditions: { files: ["a"] } }, files)).toEqual(["a"]);
  });

  test("a session's facts, as its state holds them among other fields", () => {
    const model = { providerID: "openai", modelID: "gpt-5" };
    expect(factsIn({ agent: "plan", model, window: {}, activation: {} })).toEqual({ agent: "plan", model });
    expect(factsIn({})).toEqual({ agent: undefined, model: undefined });
  });
});
