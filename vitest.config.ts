import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    // The console's browser tests run on their own (vitest.browser.config.ts, `npm run test:browser`).
    exclude: ["test/browser/**", "**/node_modules/**"],
    pool: "forks",
    maxWorkers: 2,
    // Files share a worker process; test/support/file-environment.ts gives each the suite's environment back.
    isolate: false,
    setupFiles: ["test/support/file-environment.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
