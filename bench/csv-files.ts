import { createReadStream, createWriteStream, existsSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";

const CATEGORIES = ["billing", "shipping", "returns", "account", "catalog"];

export const csvPath = (rows: number) => join(tmpdir(), `tessera-bench-${rows}.csv`);

/** `input,expected,category`, about 100 bytes a row, in os.tmpdir(); made once per size and run. */
export async function csvFile(rows: number): Promise<string> {
  const path = csvPath(rows);
  if (existsSync(path)) return path;
  const out = createWriteStream(path);
  out.write("input,expected,category\n");
  let batch = "";
  for (let i = 0; i < rows; i++) {
    batch += `"Where is order #${100000 + i}, placed on day ${i % 365}?",Order ${100000 + i} ships within ${(i % 5) + 1} days.,${CATEGORIES[i % 5]}\n`;
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, "drain");
      batch = "";
    }
  }
  out.end(batch);
  await once(out, "finish");
  return path;
}

export interface Sent {
  status: number;
  /** The first bytes of the answer (the rest is counted, not kept). */
  head: string;
  bytes: number;
}

/** Streams `file` as the multipart `file` part of a POST, fields first. */
export function uploadFile(url: string, key: string, fields: Record<string, string>, file: string): Promise<Sent> {
  const boundary = `----tesserabench${Date.now().toString(16)}`;
  const pre = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("")
    + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  const post = `\r\n--${boundary}--\r\n`;
  const length = Buffer.byteLength(pre) + statSync(file).size + Buffer.byteLength(post);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      headers: { authorization: `ApiKey ${key}`, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": length },
    }, (res) => collect(res).then(resolve, reject));
    req.on("error", reject);
    req.write(pre);
    const body = createReadStream(file);
    body.on("error", reject);
    body.pipe(req, { end: false });
    body.on("end", () => req.end(post));
  });
}

/** A POST whose answer may be large: it is counted as it streams. */
export function postStreamed(url: string, key: string): Promise<Sent & { lines: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { authorization: `ApiKey ${key}` } }, (res) => collect(res).then(resolve, reject));
    req.on("error", reject);
    req.end();
  });
}

async function collect(res: NodeJS.ReadableStream & { statusCode?: number }): Promise<Sent & { lines: number }> {
  let head = "";
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    if (head.length < 4096) head += chunk.subarray(0, 4096).toString("utf8");
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { status: res.statusCode ?? 0, head: head.slice(0, 4096), bytes, lines };
}
