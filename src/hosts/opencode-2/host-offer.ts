/**
 * What an OpenCode 2 host offers the plugin, read off its plugin context at
 * setup, and the words for what it lacks. Pure.
 *
 * OpenCode 2's plugin context grew over its revisions (read in
 * `anomalyco/opencode`; the July 2026 trunk in its mirror `Althenia/opencode`):
 * - before 2026-07-15 (`f92d84746`) the session domain has no `hook`, or one
 *   whose only hook is `request` (`4f976bcf1`, two days): no model request
 *   can be reached, and the plugin cannot work;
 * - the July trunk (@44b6938b2ad2): `session.hook("context")`, tool hooks and
 *   transforms, events; no `location`, `storage`, `rpc` or `app`; `prompt` and
 *   `compaction` hooks register and never fire;
 * - `app` from late August, `storage` (PR #43525), `rpc` (PR #46105) and
 *   `location` by the end of August; the `prompt` hook from PR #45550;
 * - 2.0.26 (`zjdCander/opencode@1066927`): all of them.
 * The adapter takes each member as it finds it and does without the rest.
 */

/** The plugin context as a host gives it: anything, checked here. */
type Offered = Record<string, unknown> | null | undefined;

export interface HostOffer {
  /** The context's own keys, as the host gave them. */
  readonly keys: readonly string[];
  /** Which OpenCode this is, when it says (`ctx.app`). */
  readonly version?: string;
  /** Where OpenCode runs this plugin instance, when it says. */
  readonly location?: { readonly directory: string; readonly projectDirectory?: string };
  /** `ctx.session.hook`: without it no model request can be reached. */
  readonly sessionHooks: boolean;
  /** `ctx.tool.hook`: tool calls refused, tool results read. */
  readonly toolHooks: boolean;
  /** `ctx.tool.transform`: the `rule` tool can be offered. */
  readonly toolTransform: boolean;
  readonly storage: boolean;
  readonly rpc: boolean;
}

/** What the host offers; a context whose members throw when read (a proxy, a getter) offers nothing: setup must never throw. */
export function hostOffer(ctx: unknown): HostOffer {
  try {
    return offerOf(ctx);
  } catch {
    return { keys: [], sessionHooks: false, toolHooks: false, toolTransform: false, storage: false, rpc: false };
  }
}

function offerOf(ctx: unknown): HostOffer {
  const context = isRecord(ctx) ? ctx : undefined;
  // A domain may be a function with methods (2.0.26's `rpc` is the RPC client with `register` on it).
  const domain = (name: string): Offered => {
    const value = context?.[name];
    return isRecord(value) || typeof value === "function" ? (value as Record<string, unknown>) : undefined;
  };
  const location = domain("location");
  const project = isRecord(location?.project) ? location.project : undefined;
  const app = domain("app");
  const name = typeof app?.name === "string" ? app.name : undefined;
  const version =
    typeof app?.version === "string" ? [name, app.version].filter((part) => part !== undefined).join(" ") : undefined;
  return {
    keys: context ? Object.keys(context).sort() : [],
    ...(version ? { version } : {}),
    ...(typeof location?.directory === "string" && location.directory !== ""
      ? {
          location: {
            directory: location.directory,
            ...(typeof project?.directory === "string" && project.directory !== ""
              ? { projectDirectory: project.directory }
              : {}),
          },
        }
      : {}),
    sessionHooks: typeof domain("session")?.hook === "function",
    toolHooks: typeof domain("tool")?.hook === "function",
    toolTransform: typeof domain("tool")?.transform === "function",
    storage: ["get", "set", "remove"].every((method) => typeof domain("storage")?.[method] === "function"),
    rpc: typeof domain("rpc")?.register === "function",
  };
}

/**
 * Whether a transform's editor takes the `rule` tool as every revision read
 * does: `add(tool)`, the tool alone (2.0.26's `ToolEditor`; the trunk's
 * `ToolDraft` since `2a4b29810`). An `add` that takes a name first
 * (`add(name, tool, options)`, `efeff6374`, and a declaration seen in the
 * index) or the Effect draft handed over as it is (`4f976bcf1`) would take
 * the tool for its name: a registration that could break every session, so
 * the tool is left out there.
 */
export function takesToolAlone(editor: unknown): boolean {
  const add = isRecord(editor) ? editor.add : undefined;
  return typeof add === "function" && add.length <= 1;
}

/** Said once, on stderr and in the log file, when the host has no session hooks: what the plugin needs, and what it got. */
export function cannotWorkText(offer: HostOffer): string {
  return (
    `opencode-rulebook cannot work on this OpenCode${offer.version ? ` (${offer.version})` : ""}: it needs the session hooks of OpenCode 2's plugin API ` +
    `(ctx.session.hook, to put the rules into each model request), and the plugin context it was given has ${offer.keys.length > 0 ? offer.keys.join(", ") : "nothing"}` +
    `${offer.keys.includes("session") ? " (its session domain has no hook)" : ""}. No rule reaches the model and no call is refused; update OpenCode, or use OpenCode 1.18.29 or later.`
  );
}

/** One line for each member the host lacks that the plugin works around: what it does instead. */
export function offerNotes(
  offer: HostOffer,
  project: { directory: string; worktree: string },
): Array<{ level: "warn" | "info"; text: string }> {
  const notes: Array<{ level: "warn" | "info"; text: string }> = [];
  const where = offer.version ? ` (${offer.version})` : "";
  if (!offer.location)
    notes.push({
      level: "warn",
      text: `This OpenCode${where} does not tell plugins where they run (no ctx.location): reading the rules of ${project.directory}, the folder it runs in${project.worktree === project.directory ? "" : `, in the project at ${project.worktree}`}`,
    });
  if (!offer.storage)
    notes.push({
      level: "info",
      text: `This OpenCode${where} gives plugins no storage: the rules placed in each session are kept in memory, and placed again after a restart`,
    });
  if (!offer.toolHooks)
    notes.push({
      level: "warn",
      text: `This OpenCode${where} gives plugins no tool hooks: no call is refused, and file rules do not come with tool results`,
    });
  if (!offer.toolTransform)
    notes.push({
      level: "info",
      text: `This OpenCode${where} takes no plugin tools: on-request rules are given whole in the rules messages`,
    });
  return notes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
