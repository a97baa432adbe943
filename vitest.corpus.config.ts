/**
 * `npm run test:corpus`: the tests that read the steering's corpus (real rule
 * files of other repositories, kept outside this one: ../shared/corpus/real-world
 * beside the checkout, or RULEBOOK_REAL_WORLD_CORPUS). `npm test` leaves them out.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/corpus/**/*.test.ts"],
  },
});
