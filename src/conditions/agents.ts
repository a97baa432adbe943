/**
 * `agents`: the rule applies only while the session works as one of the
 * agents it names (`plan`, `build`, a custom agent), whatever its mode.
 * Names compare ignoring case, as OpenCode's config keys spell them. Pure.
 */
import type { NarrowingKind } from "./contract.js";
import { isNameList, readNames } from "./front-matter-list.js";
import { nameOption } from "./name-option.js";

const AGENT_KEYS = ["agents"] as const;

export const agents = {
  kind: "agents",
  role: "narrows",
  keys: AGENT_KEYS,
  expected: "an agent name, a comma-separated list of agent names, or a YAML list of them",
  inOtherTools: true,
  read: (data) => readNames(data, AGENT_KEYS, true),
  isValue: isNameList,
  json: (names) => (names ? { agents: names } : {}),
  fact: "agent",
  holds: (names, agent) => (agent !== undefined && names.some((name) => sameName(name, agent)) ? agent : undefined),
  startsAs: "build",
  knownBy: "opencode-agents",
  option: nameOption({
    flag: "--agent",
    value: "<name>",
    help: "the agent the session works as (build, plan, general, explore, or a custom agent); without it, rules for some agents do not apply",
    accepts: (agent) => agent !== "",
    problem: "give an agent name, such as build, plan or a custom agent",
  }),
  words: {
    noun: "agent",
    nouns: "agents",
    written: (agent) => agent,
    now: (agent) =>
      agent === undefined ? "the session's agent is not known yet" : `the session works as agent ${agent}`,
    workingAs: (agent) => (agent === undefined ? "an agent not known yet" : `agent ${agent}`),
    primary: true,
  },
} as const satisfies NarrowingKind<"agents", "agent", string>;

/** Agent names as OpenCode's config keys spell them; a rule's `Plan` still means `plan`. */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
