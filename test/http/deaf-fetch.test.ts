/**
 * Issue 30 over HTTP: the real `@opencode-ai/sdk` client, given a custom
 * `fetch` that drops the abort signal (as a wrapper may), against a server
 * that never answers. The plugin aborts its request at the deadline; the
 * fetch does not hear it; the hook settles all the same, and nothing is lost
 * or sent twice.
 */
import { createOpencodeClient } from "@opencode-ai/sdk";
import { delay, http, HttpResponse } from "msw";
import { beforeEach, expect, test } from "vitest";
import { settled } from "../support/deaf-host.js";
import { useEngineOverHttp } from "../support/engine-over-http.js";
import { BASE_URL, type FakeOpencode, fakeServer, sessionCreated } from "../support/fake-opencode.js";
import { userMessage } from "../support/opencode-1-messages.js";

let server: FakeOpencode;
const { logged, engine } = useEngineOverHttp((made) => ({ server } = made));
/** The requests the client made, as the SDK built them: their signals are the plugin's. */
const sent: Request[] = [];

/** A fetch that sends the request without its signal: the server's answer is awaited however the plugin aborts. */
const deafFetch = (request: Request) => {
  sent.push(request);
  return fetch(new Request(request, { signal: null }));
};

beforeEach(() => {
  sent.length = 0;
});

/** The engine over a client with the deaf fetch, its bounds short. */
const deafEngine = () =>
  engine({
    client: createOpencodeClient({ baseUrl: BASE_URL, fetch: deafFetch }) as never,
    promptTimeoutMs: 100,
    firstMessageWaitMs: 50,
    creationGraceMs: 0,
    retry: { tries: 2, backoffMs: [10] },
    limits: { historyTimeoutMs: 100 },
  });

test("session.messages never answering: the first chat.message of a session the plugin never saw created settles, carrying the rules", async () => {
  fakeServer.use(http.get(`${BASE_URL}/session/:id/message`, () => delay("infinite")));
  const rulebook = await deafEngine();
  const message = userMessage("ses_new", "msg_u");
  const parts: never[] = [];
  await settled("chat.message", rulebook.onChatMessage({ sessionID: "ses_new" }, { message, parts }));
  expect(JSON.stringify(parts)).toContain("Write small functions.");
  // The plugin gave the read up; the fetch did not listen.
  expect(sent.some((request) => request.method === "GET" && request.signal.aborted)).toBe(true);
  rulebook.dispose();
});

test("session.prompt stored but never answered: session.created settles, and the retry finds the copy in the history (one in all)", async () => {
  fakeServer.use(
    http.post(`${BASE_URL}/session/:id/message`, async ({ request, params }) => {
      const body = (await request.json()) as { parts: Array<Record<string, unknown>>; agent?: string };
      server.prompts.push({ sessionID: String(params.id), body: body as never });
      const messages = server.history.get(String(params.id)) ?? [];
      messages.push({
        info: { id: `msg_${server.prompts.length}`, role: "user", time: { created: 10 }, agent: "build" },
        parts: body.parts,
      });
      server.history.set(String(params.id), messages);
      await delay("infinite");
      return HttpResponse.json({});
    }),
  );
  const rulebook = await deafEngine();
  await settled("session.created", rulebook.onEvent(sessionCreated("ses_a").event as never));
  expect(server.prompts).toHaveLength(1);
  expect(server.history.get("ses_a")).toHaveLength(1);
  expect(sent.some((request) => request.method === "POST" && request.signal.aborted)).toBe(true);
  expect(
    logged.some((line) =>
      line.startsWith(
        "error: Rules delivery to session ses_a on session.created failed (try 1); retrying: no answer in 100 ms",
      ),
    ),
  ).toBe(true);
  rulebook.dispose();
});
