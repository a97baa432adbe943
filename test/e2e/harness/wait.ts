/**
 * Polling and session helpers for e2e tests: `waitFor` polls a condition with a
 * timeout (OpenCode works asynchronously: prompts, titles, compaction and
 * plugin hooks finish after the HTTP call returns); the session helpers wrap
 * the v1 SDK to create sessions, send prompts and read messages as plain data.
 */
import type { OpencodeClient, Part, Message } from "@opencode-ai/sdk";

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Shown in the timeout error. */
  message?: string;
}

/**
 * Poll `fn` until it returns a truthy value (returned) or the timeout expires.
 * Exceptions thrown by `fn` count as "not yet"; the last one is reported on timeout.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: last error: ${lastError.message}` : "";
      throw new Error(`waitFor timed out after ${timeoutMs}ms${opts.message ? ` (${opts.message})` : ""}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface SessionMessage {
  info: Message;
  parts: Part[];
}

/** Throws with the server's error body when an SDK call failed. */
export function unwrap<T>(res: { data?: T; error?: unknown; response?: Response }, what = "request"): T {
  if (res.error !== undefined || res.data === undefined) {
    throw new Error(`${what} failed (${res.response?.status ?? "?"}): ${JSON.stringify(res.error)}`);
  }
  return res.data;
}

export async function createSession(
  client: OpencodeClient,
  body: { title?: string; parentID?: string } = {},
): Promise<{ id: string }> {
  return unwrap(await client.session.create({ body }), "session.create");
}

export interface PromptOptions {
  noReply?: boolean;
  agent?: string;
  system?: string;
  tools?: Record<string, boolean>;
  model?: { providerID: string; modelID: string };
}

/** Send a text prompt and wait for the turn to finish (POST /session/:id/message). */
export async function prompt(client: OpencodeClient, sessionID: string, text: string, opts: PromptOptions = {}) {
  return unwrap(
    await client.session.prompt({ path: { id: sessionID }, body: { parts: [{ type: "text", text }], ...opts } }),
    "session.prompt",
  );
}

/** Send a text prompt without waiting for the turn (POST /session/:id/prompt_async). */
export async function promptAsync(client: OpencodeClient, sessionID: string, text: string, opts: PromptOptions = {}) {
  const res = await client.session.promptAsync({
    path: { id: sessionID },
    body: { parts: [{ type: "text", text }], ...opts },
  });
  if (res.error !== undefined) throw new Error(`session.promptAsync failed: ${JSON.stringify(res.error)}`);
}

/** All messages of a session, oldest first. */
export async function getMessages(client: OpencodeClient, sessionID: string): Promise<SessionMessage[]> {
  return unwrap(await client.session.messages({ path: { id: sessionID } }), "session.messages") as SessionMessage[];
}

/** Concatenated text parts of a message (synthetic parts included unless excluded). */
export function messageText(m: SessionMessage, opts: { includeSynthetic?: boolean } = {}): string {
  return m.parts
    .filter((p): p is Extract<Part, { type: "text" }> => p.type === "text")
    .filter((p) => opts.includeSynthetic !== false || !p.synthetic)
    .map((p) => p.text)
    .join("");
}

export function assistantMessages(msgs: SessionMessage[]): SessionMessage[] {
  return msgs.filter((m) => m.info.role === "assistant");
}

export function userMessages(msgs: SessionMessage[]): SessionMessage[] {
  return msgs.filter((m) => m.info.role === "user");
}

/** Tool parts of all messages (optionally only for one tool name). */
export function toolParts(msgs: SessionMessage[], tool?: string): Array<Extract<Part, { type: "tool" }>> {
  return msgs
    .flatMap((m) => m.parts)
    .filter((p): p is Extract<Part, { type: "tool" }> => p.type === "tool" && (tool === undefined || p.tool === tool));
}

/** True when the session has no running turn (GET /session/status has no busy entry for it). */
export async function isIdle(client: OpencodeClient, sessionID: string): Promise<boolean> {
  const status = unwrap(await client.session.status(), "session.status") as Record<string, { type: string }>;
  const s = status[sessionID];
  return !s || s.type === "idle";
}

/** Wait until the session is idle and its last assistant message is completed. */
export async function waitForIdle(
  client: OpencodeClient,
  sessionID: string,
  opts: WaitOptions = {},
): Promise<SessionMessage[]> {
  return waitFor(
    async () => {
      if (!(await isIdle(client, sessionID))) return undefined;
      const msgs = await getMessages(client, sessionID);
      const last = assistantMessages(msgs).at(-1);
      if (last && last.info.role === "assistant" && !last.info.time.completed) return undefined;
      return msgs;
    },
    { message: `session ${sessionID} idle`, ...opts },
  );
}

export interface EventRecorder {
  /** Events received so far ({ type, properties }). */
  events: Array<{ type: string; properties: Record<string, unknown> }>;
  /** Wait for an event matching `pred`, returns it. */
  waitFor(
    pred: (e: { type: string; properties: Record<string, unknown> }) => boolean,
    opts?: WaitOptions,
  ): Promise<{ type: string; properties: Record<string, unknown> }>;
  stop(): void;
}

/** Subscribe to the server's event stream (GET /event) and record every event. */
export async function recordEvents(client: OpencodeClient): Promise<EventRecorder> {
  const events: EventRecorder["events"] = [];
  const ac = new AbortController();
  const sub = await client.event.subscribe({ signal: ac.signal, sseMaxRetryAttempts: 0 } as never);
  let connected!: () => void;
  const ready = new Promise<void>((r) => (connected = r));
  (async () => {
    try {
      for await (const ev of sub.stream as AsyncGenerator<{ type: string; properties: Record<string, unknown> }>) {
        events.push(ev);
        if (ev.type === "server.connected") connected();
      }
    } catch {
      /* aborted */
    }
  })();
  await Promise.race([ready, sleep(2000)]);
  return {
    events,
    waitFor: (pred, opts) => waitFor(() => events.find(pred), { message: "event", ...opts }),
    stop: () => ac.abort(),
  };
}
