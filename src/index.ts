/**
 * opencode-rulebook's entry, for both OpenCode plugin APIs: OpenCode 2 reads
 * the default export's `id` and `setup`; OpenCode 1 (1.18.29 and later) calls
 * its `server`, and calls every export of this module as a plugin, so there is
 * no other export.
 */
import { RulebookPlugin } from "./hosts/opencode-1/plugin.js";
import { setupRulebook } from "./hosts/opencode-2/plugin.js";

export default {
  id: "opencode-rulebook",
  setup: setupRulebook,
  server: RulebookPlugin,
};
