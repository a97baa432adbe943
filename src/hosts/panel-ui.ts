/**
 * OpenTUI's Solid renderer, as the terminal UI gives it to plugins. Both
 * OpenCode generations map `@opentui/solid` and `solid-js` to their own
 * copies (OpenCode 2 under Bun: `packages/tui/src/plugin/runtime-plugin-support.bun.ts`
 * @1066927); under Node, OpenCode 2 loads plugins without that mapping, and
 * the imports may not resolve. So they are imported when the panel is set
 * up, not when the module loads: where they cannot be had, the terminal UI
 * still loads the module, and only the panel is missing.
 */
import type { PanelUi } from "../panel/panel-block.js";

export async function loadPanelUi(): Promise<PanelUi<unknown> | undefined> {
  try {
    const [renderer, solid] = await Promise.all([import("@opentui/solid"), import("solid-js")]);
    return {
      createElement: renderer.createElement,
      insert: renderer.insert,
      setProp: renderer.setProp,
      effect: renderer.effect,
      createSignal: solid.createSignal,
      createMemo: solid.createMemo,
      onCleanup: solid.onCleanup,
    };
  } catch {
    return undefined;
  }
}
