import { afterAll } from "vitest";

/**
 * Test files share their worker process (`isolate: false` in vitest.config.ts: each file loading the server's
 * modules and the embedded database's WASM afresh took a fifth of the suite's time). What a file sets in
 * `process.env` (a provider's stand-in, a database of its own) is put back when the file ends, so that the next
 * file in the same process starts from the environment the suite started with.
 */
const before = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
  Object.assign(process.env, before);
});
