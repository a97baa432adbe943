/** OpenCode 1's log: `client.app.log`, under the plugin's service name. */
import { type LogSink, SERVICE } from "../../log.js";
import type { OpencodeClient } from "./session-port.js";

export function openCodeLogSink(client: OpencodeClient): LogSink {
  return (level, message, extra) =>
    client.app.log({ body: { service: SERVICE, level, message, ...(extra ? { extra } : {}) } });
}
