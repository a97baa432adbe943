/** Rules and readers the compose tests share (test/render/compose*.test.ts). */
import type { ComposedMessage } from "../../src/render/compose.js";
import { makeRule } from "./rules.js";

export const bytes = (text: string) => Buffer.byteLength(text, "utf8");
export const names = (rules: ReadonlyArray<{ name: string }>) => rules.map((rule) => rule.name);
export const includedNames = (composed: ComposedMessage) => composed.included.map(({ rule }) => rule.name);
/** A rule whose whole block is about `size` bytes. */
export const sized = (name: string, size: number, priority = 50) =>
  makeRule({ name, priority, content: "x".repeat(Math.max(0, size - 80)) });
export const onRequest = (name: string, description = `When working on ${name}`) =>
  makeRule({ name, alwaysApply: false, description });
/** A session that touches no file. */
export const none = { files: [] };
