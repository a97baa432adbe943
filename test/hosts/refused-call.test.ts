/**
 * A refused call in OpenCode 1's history: the host keeps only the error's
 * text, and the Rules panel reads the rules the refusal gave from it
 * (src/hosts/opencode/refused-call.ts through the tool part's reader).
 */
import { expect, test } from "vitest";
import { resultMarkerOf } from "../../src/hosts/opencode-1/parts.js";
import { whyText } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { refusalText } from "../../src/render/refusal.js";
import { ruleReadMarker } from "../../src/session/marker.js";
import { makeRule } from "../support/rules.js";

const refusal = refusalText(
  [
    {
      rule: makeRule({ name: "no-console" }),
      pattern: { written: "console.log(", kind: "literal", re2: "", size: 1 },
      file: "src/a.ts",
      line: "console.log(1)",
      lineNumber: 1,
    },
  ],
  new Set(["no-console"]),
);

test("the panel lists a refused call's rule as `blocked write src/a.ts`, beside rules delivered before", () => {
  const part = { type: "tool", tool: "write", state: { status: "error", error: `Error: ${refusal}` } };
  const marker = resultMarkerOf(part);
  const panel = rulesPanel([ruleReadMarker("security"), marker as NonNullable<typeof marker>]);
  expect(panel?.inContext.map((rule) => [rule.name, rule.why && whyText(rule.why)])).toEqual([
    ["security", "read on request"],
    ["no-console", "blocked write src/a.ts"],
  ]);
});

test("any other failed call, and an error that is not text, give the panel nothing", () => {
  expect(
    resultMarkerOf({ type: "tool", tool: "write", state: { status: "error", error: "Error: EACCES" } }),
  ).toBeUndefined();
  expect(
    resultMarkerOf({ type: "tool", tool: "write", state: { status: "error", error: { message: refusal } } }),
  ).toBeUndefined();
});
