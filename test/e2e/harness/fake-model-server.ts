/**
 * Fake OpenAI-compatible chat-completions server for end-to-end tests.
 *
 * OpenCode talks to it through a custom provider (`@ai-sdk/openai-compatible`,
 * baseURL = fakeModel.url), so tests run offline, deterministically and fast.
 * Every request body is recorded; replies are scripted with a queue
 * (`enqueue`) or a function (`respond`), falling back to `defaultReply` ("ok").
 * Title-generation and compaction-summary requests (which OpenCode sends on its
 * own, concurrently with the main turn) are recognised and answered separately
 * (`titleReply`, `summaryReply`) so they never consume the scripted queue.
 * OpenCode sends `x-session-id` on every model call; it is kept as
 * `sessionID` so tests can tell sessions (and subagent sessions) apart.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatRequestBody,
  type FakeModelOptions,
  isMainRequest,
  isSummaryRequest,
  isTitleRequest,
  type RecordedRequest,
  type Reply,
  type ReplyObject,
  type Responder,
} from "./fake-model.js";

function normalize(reply: Reply): ReplyObject {
  return typeof reply === "string" ? { text: reply } : reply;
}

let callCounter = 0;

export class FakeModel {
  /** Every chat-completions request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Scripted replies for main requests, consumed in order. */
  readonly queue: Reply[] = [];
  defaultReply: Reply;
  titleReply: Reply;
  summaryReply: Reply;
  /** Called first for every request (title and summary included). */
  responder: Responder | undefined;
  readonly models: string[];
  private server: http.Server;
  private port = 0;
  private seq = 0;
  private listeners = new Set<() => void>();

  constructor(opts: FakeModelOptions = {}) {
    this.defaultReply = opts.defaultReply ?? "ok";
    this.titleReply = opts.titleReply ?? "Test session";
    this.summaryReply = opts.summaryReply ?? "Summary of the conversation so far.";
    this.models = opts.models ?? ["fake-model"];
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
    });
  }

  /** Base URL to put in the provider's options.baseURL, e.g. http://127.0.0.1:1234/v1 */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Script the next main-request replies (in order). */
  enqueue(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Set (or clear) the responder function. */
  respond(fn: Responder | undefined): this {
    this.responder = fn;
    return this;
  }

  /** Clear recorded requests, queue and responder. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.responder = undefined;
  }

  /** Main agent requests only (title/summary requests filtered out), optionally of one session. */
  mainRequests(sessionID?: string): RecordedRequest[] {
    return this.requests.filter((r) => isMainRequest(r) && (sessionID === undefined || r.sessionID === sessionID));
  }

  /** All requests made on behalf of one session (x-session-id header). */
  requestsFor(sessionID: string): RecordedRequest[] {
    return this.requests.filter((r) => r.sessionID === sessionID);
  }

  titleRequests(): RecordedRequest[] {
    return this.requests.filter(isTitleRequest);
  }

  summaryRequests(): RecordedRequest[] {
    return this.requests.filter(isSummaryRequest);
  }

  /** Resolve when `filter` matches at least `count` recorded requests; returns them. */
  async waitForRequests(
    count: number,
    opts: { filter?: (r: RecordedRequest) => boolean; timeoutMs?: number } = {},
  ): Promise<RecordedRequest[]> {
    const filter = opts.filter ?? isMainRequest;
    const timeoutMs = opts.timeoutMs ?? 20_000;
    const matched = () => this.requests.filter(filter);
    if (matched().length >= count) return matched();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (matched().length >= count) {
          clearTimeout(timer);
          this.listeners.delete(check);
          resolve(matched());
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(
          new Error(
            `FakeModel: timed out after ${timeoutMs}ms waiting for ${count} request(s); have ${matched().length} (${this.requests.length} total)`,
          ),
        );
      }, timeoutMs);
      this.listeners.add(check);
    });
  }

  private async pick(rec: RecordedRequest): Promise<ReplyObject> {
    const fromFn = this.responder ? await this.responder(rec) : undefined;
    if (fromFn !== undefined) return normalize(fromFn);
    if (isTitleRequest(rec)) return normalize(this.titleReply);
    if (isSummaryRequest(rec)) return normalize(this.summaryReply);
    const next = this.queue.shift();
    return normalize(next ?? this.defaultReply);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: this.models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
        }),
      );
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake model: no route ${req.method} ${path}` } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as ChatRequestBody;
    const sid = req.headers["x-session-id"];
    const rec: RecordedRequest = {
      seq: ++this.seq,
      time: Date.now(),
      method: req.method,
      path,
      headers: req.headers,
      sessionID: typeof sid === "string" ? sid : undefined,
      body,
    };
    this.requests.push(rec);
    for (const l of [...this.listeners]) l();

    const reply = await this.pick(rec);
    rec.reply = reply;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.error) {
      res.writeHead(reply.error.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: reply.error.message, type: "fake_error" } }));
      return;
    }

    const id = `chatcmpl-fake-${rec.seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "fake-model";
    const toolCalls = (reply.toolCalls ?? []).map((t) => ({
      id: t.id ?? `call_fake_${++callCounter}`,
      type: "function" as const,
      function: {
        name: t.name,
        arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments),
      },
    }));
    const finishReason = reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");
    const text = reply.text ?? (toolCalls.length || reply.reasoning ? undefined : "");
    const prompt = reply.usage?.prompt_tokens ?? 10;
    const completion = reply.usage?.completion_tokens ?? 5;
    const usage: Record<string, unknown> = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: reply.usage?.total_tokens ?? prompt + completion,
    };
    if (reply.usage?.cached_tokens !== undefined)
      usage.prompt_tokens_details = { cached_tokens: reply.usage.cached_tokens };

    if (body.stream) {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      const send = (
        delta: Record<string, unknown>,
        finish: string | null = null,
        extra: Record<string, unknown> = {},
      ) =>
        res.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
        );
      send({ role: "assistant", content: "" });
      if (reply.reasoning) send({ reasoning_content: reply.reasoning });
      if (text) send({ content: text });
      toolCalls.forEach((tc, index) => {
        send({
          tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.function.name, arguments: "" } }],
        });
        send({ tool_calls: [{ index, function: { arguments: tc.function.arguments } }] });
      });
      send({}, finishReason, { usage });
      res.write("data: [DONE]\n\n");
      res.end();
      return;
    }

    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: text ?? null,
              ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage,
      }),
    );
  }
}

/** Start a fake model on 127.0.0.1 with a random port. */
export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  return new FakeModel(opts).listen();
}
