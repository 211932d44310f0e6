import { defineConfig } from "vitest/config";

/** The console's browser tests (Chromium through playwright-core): `npm run test:browser`. */
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
