/**
 * The sources rule files are read from: this project's own format and those
 * of the other agents (issue 29), in precedence order.
 */
import type { RuleSource } from "../discover/source.js";
import { antigravitySource } from "./antigravity.js";
import { claudeSource } from "./claude.js";
import { clineSource } from "./cline.js";
import { copilotSource } from "./copilot.js";
import { cursorSource } from "./cursor.js";
import { extraSource } from "./extra.js";
import { geminiSource } from "./gemini.js";
import { kiloSource } from "./kilo.js";
import { kiroSource } from "./kiro.js";
import { nativeSource } from "./native.js";
import { rooSource } from "./roo.js";
import { windsurfSource } from "./windsurf.js";
import { continueSource } from "./continue.js";
import { augmentSource } from "./augment.js";
import { amazonqSource } from "./amazonq.js";
import { zedSource } from "./zed.js";
import { junieSource } from "./junie.js";
import { aiassistantSource } from "./aiassistant.js";
import { openhandsSource } from "./openhands.js";
import { managedSource } from "../packs/managed.js";

/**
 * Every source, in precedence order within a scope: the managed folder (its
 * rules are a tier of their own, above every other), native (with `extra`,
 * the `extraDirs` folders, right after it), Cursor, Claude Code, Windsurf,
 * Cline, GitHub Copilot, Kiro; then, after them, Antigravity, Continue,
 * Augment, Amazon Q Developer, Kilo Code, Roo Code, Zed, Junie, JetBrains AI
 * Assistant, Gemini CLI, OpenHands (the order of issue 29's list).
 */
export const ALL_SOURCES: RuleSource[] = [
  managedSource,
  nativeSource,
  extraSource,
  cursorSource,
  claudeSource,
  windsurfSource,
  clineSource,
  copilotSource,
  kiroSource,
  antigravitySource,
  continueSource,
  augmentSource,
  amazonqSource,
  kiloSource,
  rooSource,
  zedSource,
  junieSource,
  aiassistantSource,
  geminiSource,
  openhandsSource,
];
