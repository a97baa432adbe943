/**
 * Markers as the code before the condition kinds (issue 42) wrote them,
 * copied literally: read back, they keep every reason and scope, and the
 * log, the Rules panel and a composed message's marker say what they said.
 * A stored marker outlives versions: its shapes never change.
 */
import { describe, expect, test } from "vitest";
import { panelLines, whyText } from "../../src/panel/panel-lines.js";
import { rulesPanel } from "../../src/panel/rules-panel.js";
import { composeRulesMessage } from "../../src/render/compose.js";
import { ruleTokens } from "../../src/render/tokens.js";
import { reasonText } from "../../src/select/reasons.js";
import { asMarker, markerFor, type RulesMarker } from "../../src/session/marker.js";
import type { Rule } from "../../src/rule/rule.js";
import { parsed } from "../support/parse.js";

const ruleOf = (text: string, name: string) => parsed(text, name).rule as Rule;

/** Written by the code before issue 42: every trigger's met shape, scopes of one and of both facts, an origin. */
const STORED = {
  kind: "rules",
  rules: ["ts", "deploy", "legacy", "plan-notes", "claude", "both", "manual", "read"],
  trigger: "message",
  delivery: "d-1",
  why: [
    { reason: { kind: "conditions", met: [{ kind: "file", file: "src/a.ts", glob: "src/**/*.ts" }] } },
    { reason: { kind: "conditions", met: [{ kind: "keyword", keyword: "deploy" }] } },
    { reason: { kind: "conditions", met: [{ kind: "content", file: "src/net.ts", pattern: "legacyFetch(" }] } },
    { reason: { kind: "always" }, scope: { agent: "plan" } },
    { reason: { kind: "always" }, scope: { model: "anthropic/*" } },
    {
      reason: {
        kind: "conditions",
        met: [
          { kind: "file", file: "db/x.sql", glob: "db/**" },
          { kind: "keyword", keyword: "migration" },
          { kind: "content", file: "db/x.sql", pattern: "/drop\\s+table/i" },
        ],
      },
      scope: { agent: "build", model: "openai/*" },
      from: "managed",
    },
    { reason: { kind: "mention", rule: "manual" } },
    { reason: { kind: "rule-tool" } },
  ],
  paused: ["plan-notes"],
};

const stored = () => asMarker(JSON.parse(JSON.stringify(STORED))) as RulesMarker;

describe("markers written before the condition kinds", () => {
  test("read back whole: every reason, met value and scope kept as stored", () => {
    expect(stored()).toEqual(STORED);
  });

  test("the log's words and the panel's, as before", () => {
    expect(stored().why?.map((why) => [whyText(why), reasonText(why.reason)])).toEqual([
      ["file src/a.ts matched src/**/*.ts", "file src/a.ts matched src/**/*.ts"],
      ['keyword "deploy"', 'keyword "deploy" in the prompt'],
      ['file src/net.ts contains "legacyFetch("', 'file src/net.ts contains "legacyFetch("'],
      ["always · agent plan", "always"],
      ["always · model anthropic/*", "always"],
      [
        'file db/x.sql matched db/** and keyword "migration" and file db/x.sql contains "/drop\\\\s+table/i" · agent build, model openai/* · managed',
        'file db/x.sql matched db/** and keyword "migration" in the prompt and file db/x.sql contains "/drop\\\\s+table/i"',
      ],
      ["@manual in the prompt", "mention: @manual in the prompt"],
      ["read on request", "read with the rule tool"],
    ]);
    const panel = rulesPanel([stored()]);
    expect(panelLines(panel, 20).map(({ text }) => text)).toEqual([
      "Rules · 7",
      "ts · file",
      "deploy · keyword",
      "legacy · content",
      "claude · always",
      "both · file+keyword…",
      "manual · @mention",
      "read · read",
      "1 set aside",
    ]);
    expect(panelLines(panel, 37).map(({ text }) => text)).toContain("  given for agent plan");
  });

  test("a damaged reason or scope is left out, as before; a fact no kind reads is kept unread", () => {
    const why = (entry: unknown) => asMarker({ kind: "rules", rules: ["x"], trigger: "message", why: [entry] });
    const bare = { kind: "rules", rules: ["x"], trigger: "message" };
    for (const met of [
      { kind: "file", file: "a" },
      { kind: "keyword", keyword: 5 },
      { kind: "content", file: "a" },
      { kind: "weather", weather: "rain" },
      "file",
    ])
      expect(why({ reason: { kind: "conditions", met: [met] } })).toEqual(bare);
    expect(why({ reason: { kind: "conditions", met: [] } })).toEqual(bare);
    expect(why({ reason: { kind: "always" }, scope: { agent: 5 } })).toEqual(bare);
    expect(why({ reason: { kind: "always" }, scope: { model: ["a"] } })).toEqual(bare);
    expect(why({ reason: { kind: "always" }, scope: { weather: 5 } })).toEqual({
      ...bare,
      why: [{ reason: { kind: "always" }, scope: { weather: 5 } }],
    });
  });

  test("a composed message's marker has the shapes it always had", () => {
    const rules = [
      ruleOf("---\nglobs: src/**/*.ts\nagents: [build]\nmodels: openai/*\n---\nTS.", "ts"),
      ruleOf("---\nkeywords: deploy\n---\nD.", "deploy"),
      ruleOf("---\nfileContains: legacyFetch(\nmatch: all\nglobs: src/**\n---\nL.", "legacy"),
      ruleOf("---\ndescription: Guide\nalwaysApply: false\nagents: build\n---\nG.", "guide"),
    ];
    const composed = composeRulesMessage(
      rules,
      {
        files: ["src/a.ts"],
        prompt: "deploy now",
        contentMatches: new Map([["legacy", { kind: "content", file: "src/b.ts", pattern: "legacyFetch(" }]]),
        facts: { agent: "build", model: { providerID: "openai", modelID: "gpt-5" } },
      },
      { listOnRequest: true },
    );
    expect(composed && markerFor(composed, "message", { delivery: "d-2" })).toEqual({
      kind: "rules",
      rules: ["ts", "deploy", "legacy"],
      trigger: "message",
      delivery: "d-2",
      listed: ["guide"],
      why: [
        {
          reason: { kind: "conditions", met: [{ kind: "file", file: "src/a.ts", glob: "src/**/*.ts" }] },
          scope: { agent: "build", model: "openai/*" },
        },
        { reason: { kind: "conditions", met: [{ kind: "keyword", keyword: "deploy" }] } },
        {
          reason: {
            kind: "conditions",
            met: [
              { kind: "file", file: "src/a.ts", glob: "src/**" },
              { kind: "content", file: "src/b.ts", pattern: "legacyFetch(" },
            ],
          },
        },
      ],
      offered: ["guide"],
      // Added since (issue 43): what each rule costs, which earlier markers lack (marker-tokens.test.ts).
      tokens: rules.slice(0, 3).map(ruleTokens),
    });
  });
});
