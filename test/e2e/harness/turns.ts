/**
 * A session's first turn and its manual compaction in the real OpenCode, as
 * the delivery tests drive them (delivery-compaction, delivery-silent): the
 * user's turn answered by the fake model, `/compact` summarised by it, and
 * the wait for the plugin's rules in the window the compaction opened.
 */
import type { OpencodeClient } from "@opencode-ai/sdk";
import { rulesAfterLastCompaction, waitForRulesStored } from "./rules.js";
import { createSession, getMessages, prompt, type SessionMessage, unwrap, waitFor, waitForIdle } from "./wait.js";

/** The fake provider's model, as a session and a summary name it. */
export const FAKE_MODEL = { providerID: "fake", modelID: "fake-model" } as const;

/** A new session that holds the rules and has had one ordinary turn, `text`, answered. */
export async function sessionWithOneTurn(client: OpencodeClient, text: string): Promise<string> {
  const { id } = await createSession(client);
  await waitForRulesStored(client, id);
  await prompt(client, id, text);
  await waitForIdle(client, id);
  return id;
}

/** A manual compaction (the user's `/compact`), summarised by the fake model. */
export async function compact(client: OpencodeClient, sessionID: string): Promise<void> {
  unwrap(await client.session.summarize({ path: { id: sessionID }, body: FAKE_MODEL }), "session.summarize");
}

/** Waits until the session holds rules the model can see after its last compaction; returns its messages. */
export function waitForRulesAfterCompaction(client: OpencodeClient, sessionID: string): Promise<SessionMessage[]> {
  return waitFor(
    async () => {
      const messages = await getMessages(client, sessionID);
      return rulesAfterLastCompaction(messages) > 0 ? messages : undefined;
    },
    { message: "rules re-delivered after compaction", timeoutMs: 10_000 },
  );
}
