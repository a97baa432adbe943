/**
 * The terminal UI's renderer for tests: OpenCode's terminal UI gives plugins
 * its own `@opentui/solid` and `solid-js` (they are not dependencies of this
 * package); the tests give them a stand-in, so the Rules panel is drawn as
 * the terminal UI would load it.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const standIn = fileURLToPath(new URL("./test/helpers/opentui-stand-in.ts", import.meta.url));

export default defineConfig({
  test: {
    alias: { "@opentui/solid": standIn, "solid-js": standIn },
  },
});
