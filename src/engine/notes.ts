/** What a person reads in the log about a session's steps: each `Note` of the model (`session.ts`), worded here. */
import type { Logger } from "../log.js";
import { weakenedLine } from "../render/weakened.js";
import { reasonText } from "../select/reasons.js";
import type { SilentTrigger } from "../session/marker.js";
import type { Note, SessionState } from "../session/session.js";
import type { FailedTry } from "../session/silent-delivery.js";
import { CONTENT_SCAN_MS } from "./content-scan.js";
import type { HostLabels } from "./contract.js";

interface NoteWords {
  log: Logger;
  labels: HostLabels;
  /** The check's bound, as the log names it. */
  checkMs: number;
}

/** Hears each note of a session's steps, with the session as the step left it. */
export type NoteWriter = (sessionID: string, note: Note, state: SessionState) => void;

export function noteWriter({ log, labels, checkMs }: NoteWords): NoteWriter {
  const on = (trigger: SilentTrigger) => labels[trigger] ?? trigger;
  return (sessionID, note) => {
    switch (note.kind) {
      case "activated": {
        const reason = reasonText(note.reason);
        return log.debug(`Activated rule ${note.rule} for session ${sessionID}: ${reason}`, {
          sessionID,
          rule: note.rule,
          reason,
        });
      }
      case "delivered": {
        const where =
          note.how === "message"
            ? "inside its user message"
            : note.how === "tool-result"
              ? `with the result of ${note.tool}`
              : `on ${on(note.how)}`;
        return log.debug(`Delivered ${note.rules.length} rules to session ${sessionID} ${where}`, {
          sessionID,
          rules: note.rules,
        });
      }
      case "enforced": {
        const verb = note.mode === "block" ? "Refused" : "Let run, with a warning,";
        const what = note.broken.map(
          ({ rule, pattern, file, lineNumber }) =>
            `${rule} (${pattern}${file === undefined ? "" : ` in ${file}${lineNumber === undefined ? "" : ` line ${lineNumber}`}`})`,
        );
        return log.info(`${verb} a ${note.tool} call in session ${sessionID}: it breaks ${what.join(", ")}`, {
          sessionID,
          tool: note.tool,
          rules: note.broken.map(({ rule }) => rule),
        });
      }
      case "weakened": {
        const lines = note.weakened.map(weakenedLine);
        return log.warn(
          `A ${note.tool} call in session ${sessionID} weakened rules that forbid (it ran; rule files stay writable):\n${lines.join("\n")}`,
          { sessionID, tool: note.tool, rules: note.weakened.map(({ name }) => name) },
        );
      }
      case "went-on-before-rules":
        return log.debug(
          `Session ${sessionID} went on after its compaction before the rules could go: they go with its next message`,
          { sessionID },
        );
      case "history-unreadable":
        if (note.silent)
          return log.warn(
            `Sending the rules to session ${sessionID} in a silent message without reading its history (${note.error}): an earlier copy may be there`,
            { sessionID },
          );
        return log.warn(
          `Could not read the history of session ${sessionID} (${note.error}); delivering the rules with this message, though an earlier copy may be there`,
          { sessionID },
        );
      case "delivery-failed": {
        const event = on(note.trigger);
        const error = failureText(note.failure);
        return log.error(
          `Rules delivery to session ${sessionID} on ${event} failed (try ${note.attempt})${note.final ? "; left for the session's next event" : "; retrying"}: ${error}`,
          { sessionID, event, attempt: note.attempt, error },
        );
      }
      case "unreadable-part":
        return log.warn(
          `A part of a message in session ${sessionID} could not be read (${note.error}); the rest of the message was`,
          { sessionID },
        );
      case "unchecked-change": {
        const { written, problem, outcome } = note.change;
        const then = outcome === "let through" ? "it was let through" : "it was judged by the edit alone";
        return log.warn(
          `Could not check a ${note.tool} call of ${written} in session ${sessionID} against the rules that forbid (${problem}); ${then}`,
          { sessionID, tool: note.tool },
        );
      }
      case "check-incomplete": {
        const names = note.unreached.map((rule) => `${rule.name} (${rule.displayPath})`);
        return log.warn(
          `Could not check all of a ${note.tool} call in session ${sessionID} against the rules that forbid within ${checkMs} ms; what was not checked was let through. Not reached: ${names.join(", ") || "none named"}`,
          { sessionID, tool: note.tool, unreached: note.unreached.map((rule) => rule.name) },
        );
      }
      case "weakening-unknown":
        return log.error(
          `Could not tell whether a call in session ${sessionID} weakens a rule that forbids: ${note.error}`,
          { sessionID },
        );
      case "corrected":
      case "gave-up": {
        const what = `${note.tool}${note.file === undefined ? "" : ` of ${note.file}`}`;
        const outcome =
          note.kind === "corrected" ? "went through after its refusal" : "was not made again after its refusal";
        return log.debug(`A ${what} in session ${sessionID} ${outcome} (${note.rules.join(", ")})`, {
          sessionID,
          rules: note.rules,
        });
      }
      case "rule-requested":
        return log.debug(`Session ${sessionID} read rule ${note.rule} with the rule tool`, {
          sessionID,
          rule: note.rule,
        });
      case "tool-calls":
        // Counted for the record only.
        return;
      case "content-unscanned":
        return log.warn(
          `The text ${note.tool} brought in was not all looked at for rules with content conditions (over ${CONTENT_SCAN_MS} ms); rules it did not reach were not activated by it`,
          { sessionID },
        );
    }
  };
}

function failureText(failure: FailedTry): string {
  if (failure.kind === "history-unreadable-with-pending")
    return "an earlier rules prompt may have been stored, and the history that would tell cannot be read; trying again later";
  return failure.error;
}
