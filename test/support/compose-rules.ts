/** Rules and readers the compose tests share (test/render/compose*.test.ts). */
import { expect } from "vitest";
import type { ComposedMessage } from "../../src/render/compose.js";
import type { Rule } from "../../src/rule/rule.js";
import { makeRule } from "./rules.js";
import { parseRulesMessage } from "./rules-message.js";

export const bytes = (text: string) => Buffer.byteLength(text, "utf8");
export const names = (rules: ReadonlyArray<{ name: string }>) => rules.map((rule) => rule.name);
export const includedNames = (composed: ComposedMessage) => composed.included.map(({ rule }) => rule.name);
/** A rule whose whole block is about `size` bytes; its text starts with its name (two rules' equal text is given once). */
export const sized = (name: string, size: number, priority = 50) =>
  makeRule({ name, priority, content: `${name} ${"x".repeat(size)}`.slice(0, Math.max(0, size - 80)) });
export const onRequest = (name: string, description = `When working on ${name}`) =>
  makeRule({ name, alwaysApply: false, description });
/** A session that touches no file. */
export const none = { files: [] };
/** The rules a session holds, each under the name it was given as (`{ old: ts }`: `ts` was delivered as `old`). */
export const held = (byName: Readonly<Record<string, Rule>>) => new Map(Object.entries(byName));

/**
 * Every one of `rules` is in the message or named as left out, once; the message's blocks are the rules included, in
 * their order.
 */
export function expectAccountedFor(composed: ComposedMessage, rules: ReadonlyArray<{ name: string }>): void {
  const included = includedNames(composed);
  expect(new Set([...included, ...names(composed.leftOut)])).toEqual(new Set(names(rules)));
  expect(included.length + composed.leftOut.length).toBe(rules.length);
  expect(names(parseRulesMessage(composed.text))).toEqual(included);
}
