import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdListWriter, loadIds, storePackedIds, unpackIds } from "../src/testsets/chunk-lists.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

let server: TestServer;
let p: TestProject;
beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});
afterAll(() => server.close());

describe("an id list stored as it arrives", () => {
  it("gives the same chunks and lists as the whole list stored at once, whatever the pieces", async () => {
    const packed = randomBytes(16 * 20_000);
    const whole = await server.db.transaction((tx) => storePackedIds(tx, p.id, packed));
    for (const pieces of [[20_000], [1, 4_999, 15_000], [333, 333, 333, 19_001]]) {
      const stored = await server.db.transaction(async (tx) => {
        const writer = new IdListWriter(tx, p.id);
        let at = 0;
        for (const n of pieces) {
          await writer.add(packed.subarray(at * 16, (at + n) * 16));
          at += n;
        }
        return writer.finish();
      });
      expect(stored).toEqual(whole);
    }
    expect(await loadIds(server.db, p.id, whole)).toEqual(unpackIds(packed));
  });
});
