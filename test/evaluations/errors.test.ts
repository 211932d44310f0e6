import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as errors from "../../src/evaluations/errors.ts";
import { HttpError } from "../../src/errors.ts";

const ROOM = path.join(import.meta.dirname, "../../src/evaluations");
const sources = (readdirSync(ROOM, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts") && f !== "errors.ts")
  .map((f) => ({ file: f, text: readFileSync(path.join(ROOM, f), "utf8") }));

describe("the evaluation engine's failures", () => {
  it("are each built by errors.ts with a status and a detail", () => {
    const built = Object.entries(errors).map(([name, make]) => {
      const build = make as (...args: unknown[]) => unknown;
      // Every parameter a list of one id: it reads as the id in a template and as the list where one is expected.
      const error = build(...Array.from({ length: build.length }, () => ["0190b8a8-5f8c-7000-8000-000000000000"]));
      expect(error, name).toBeInstanceOf(HttpError);
      return (error as HttpError).statusCode;
    });
    expect(new Set(built)).toEqual(new Set([400, 404, 409, 422]));
  });

  it("are each thrown somewhere in the room, and nowhere made another way", () => {
    for (const name of Object.keys(errors)) {
      expect(sources.some((s) => new RegExp(`\\b${name}\\(`).test(s.text)), `${name} is unused`).toBe(true);
    }
    const direct = /\b(badRequest|notFound|conflict|unprocessable|tooLarge|unauthorized)\(|new HttpError\b/;
    expect(sources.filter((s) => direct.test(s.text)).map((s) => s.file)).toEqual([]);
  });
});
