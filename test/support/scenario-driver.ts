/**
 * One table of scenarios, two hosts (issue 16): a `HostDriver` runs the
 * plugin in one OpenCode (1.x: the real `opencode serve`; 2.x: the simulated
 * host of `test/support/opencode-2-host.ts`) and reports what the model
 * received at each of its requests, in one host-neutral shape.
 */

/** One message of a model request, its text flattened (tool results included). */
export interface SeenMessage {
  role: "system" | "user" | "assistant" | "tool";
  text: string;
}

/** What the model received at one request of the agent loop (title and summary requests left out). */
export interface SeenRequest {
  /** The system prompt first (role `system`), then the conversation in order. */
  messages: SeenMessage[];
}

/** What the model does at one step of a turn: call a tool, or answer and end the turn. */
export type ModelStep =
  | { read: string }
  | { write: string; content: string }
  /** Replaces `oldString` with `newString` in the file (the host's edit tool). */
  | { edit: string; oldString: string; newString: string }
  /** Runs a shell command (the host's bash tool). */
  | { bash: string }
  /** The plugin's `rule` tool. */
  | { rule: string }
  | { answer: string };

/** Who the user works as in a turn: the agent picked (Tab in the terminal UI); the host's default agent, `build`, when absent. */
export interface TurnAs {
  agent?: string;
}

export interface HostSetup {
  /** `<project>/.opencode/rules/<name>`: contents. */
  projectRules: Record<string, string>;
  /** The user's global rules folder (`<config>/opencode/rules/<name>`): contents. */
  globalRules?: Record<string, string>;
  /** Project files (relative paths): contents. */
  projectFiles?: Record<string, string>;
  /** The plugin's options (its config entry). */
  pluginOptions?: Record<string, unknown>;
  /** The managed rules folder (`OPENCODE_RULEBOOK_MANAGED_DIR`, a temporary folder): contents. */
  managedRules?: Record<string, string>;
  /**
   * Run once the files are written, before the host starts: what a user does
   * in the project first (`opencode-rulebook packs install`), with the
   * environment the host runs in (its HOME, XDG folders, managed folder).
   */
  prepare?: (place: { project: string; env: Record<string, string> }) => void;
  /**
   * Every session operation the plugin calls on the host fails (1.x: its SDK
   * client throws; 2.x: `ctx.session.get` and `ctx.storage` reject). The
   * user's session must keep working and still get its rules.
   */
  failingClient?: boolean;
}

export interface HostDriver {
  readonly name: string;
  start(setup: HostSetup): Promise<void>;
  stop(): Promise<void>;
  newSession(): Promise<string>;
  /**
   * Sends the user's text; the model takes `steps` in order (the last answer
   * ends the turn; with no steps it answers "ok"). Resolves when the turn is
   * over, with the model's requests of that turn in order.
   */
  turn(sessionID: string, text: string, steps?: ModelStep[], as?: TurnAs): Promise<SeenRequest[]>;
  /**
   * Compacts the session the host's way (1.x: `session.summarize`; 2.x: a
   * checkpoint), with no model turn of its own, then sends `text` as the next
   * turn and returns that turn's requests.
   */
  compactThenTurn(sessionID: string, text: string): Promise<SeenRequest[]>;
  /** Writes (or replaces) a project rule file; resolves once the plugin can have seen it. */
  writeRule(name: string, content: string): Promise<void>;
  /** Absolute path of a project file. */
  projectPath(relative: string): string;
  /** What the plugin logged so far (warnings and errors at least). */
  pluginLog(): string;
  /** The Rules panel's lines for the session as the host's terminal UI would draw them now; "no panel" where the host has none. */
  rulesPanel(sessionID: string): Promise<string[] | "no panel">;
}
