import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../errors.ts";

/** The media type a client accepts to follow an upload's processing: one JSON object a line. */
export const PROGRESS_TYPE = "application/x-ndjson";

/** What an upload reports while the server stores the rows it received and parsed. */
export interface UploadProgress {
  /** The file is parsed: `rows` rows to store. */
  storing(rows: number): void;
  /** `stored` of them are written. */
  stored(stored: number): void;
  /** Every row is written; the revision is being committed. */
  committing(): void;
}

/**
 * A streamed upload answer. Nothing is sent until the file is received and parsed (so a refused file is an ordinary
 * 4xx), then one line per step: `{"stage":"storing","rows":N,"stored":n}` as batches are written,
 * `{"stage":"committing"}`, and last `{"stage":"done","answer":…}` (the body a plain request gets) or
 * `{"stage":"failed","status":…,"detail":…}`.
 */
class ProgressLines implements UploadProgress {
  started = false;
  private rows = 0;
  private readonly reply: FastifyReply;

  constructor(reply: FastifyReply) {
    this.reply = reply;
  }

  write(line: Record<string, unknown>) {
    if (!this.started) {
      this.started = true;
      this.reply.hijack();
      this.reply.raw.writeHead(200, { "content-type": `${PROGRESS_TYPE}; charset=utf-8`, "cache-control": "no-store" });
    }
    this.reply.raw.write(JSON.stringify(line) + "\n");
  }

  storing(rows: number) {
    this.rows = rows;
    this.write({ stage: "storing", rows, stored: 0 });
  }

  stored(stored: number) {
    this.write({ stage: "storing", rows: this.rows, stored });
  }

  committing() {
    this.write({ stage: "committing", rows: this.rows });
  }

  end(line: Record<string, unknown>) {
    this.write(line);
    this.reply.raw.end();
  }
}

/**
 * Runs an upload's `work`, reporting its progress as lines when the client accepts `application/x-ndjson`
 * (see ProgressLines); otherwise answers as any route does.
 */
export async function answerUpload(
  req: FastifyRequest, reply: FastifyReply, work: (progress: UploadProgress | null) => Promise<unknown>,
): Promise<unknown> {
  if (!(req.headers.accept ?? "").includes(PROGRESS_TYPE)) return work(null);
  const lines = new ProgressLines(reply);
  try {
    const answer = await work(lines);
    if (!lines.started) return answer;
    lines.end({ stage: "done", answer });
  } catch (error) {
    if (!lines.started) throw error;
    const status = error instanceof HttpError ? error.statusCode : 500;
    if (status >= 500) req.log.error({ err: error }, "upload failed after its progress began");
    lines.end({ stage: "failed", status, detail: error instanceof HttpError ? error.detail : "Internal Server Error" });
  }
  return reply;
}
