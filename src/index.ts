/**
 * opencode-rulebook's entry. OpenCode 1 calls every export of this module as
 * a plugin, so it exports the plugin and nothing else: the OpenCode 1
 * adapter, over the engine.
 */
export { RulebookPlugin } from "./hosts/opencode-1/plugin.js";
