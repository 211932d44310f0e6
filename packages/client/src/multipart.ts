/** A file to upload: a Blob/File, bytes, a web stream, or any async iterable of chunks (e.g. Node's fs.createReadStream). */
export type FileBody = Blob | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>;

const quote = (s: string) => s.replace(/["\r\n]/g, "_");

/**
 * A multipart/form-data body. A Blob or bytes go through FormData; a stream is framed by hand so
 * that a large file is sent as it is read, never held in memory. Fields come before the file:
 * the server reads them up to the file part.
 */
export function multipartBody(fields: Record<string, string | undefined>, file: FileBody, fileName: string): { body: FormData | ReadableStream<Uint8Array>; headers: Record<string, string> } {
  const present = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  if (file instanceof Blob || file instanceof Uint8Array) {
    const form = new FormData();
    for (const [name, value] of present) form.append(name, value);
    form.append("file", file instanceof Blob ? file : new Blob([file as Uint8Array<ArrayBuffer>]), fileName);
    return { body: form, headers: {} };
  }
  const boundary = `tessera-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  const encoder = new TextEncoder();
  const head = present.map(([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`).join("")
    + `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${quote(fileName)}"\r\ncontent-type: application/octet-stream\r\n\r\n`;
  const chunks = (file instanceof ReadableStream ? iterate(file) : file)[Symbol.asyncIterator]();
  let stage: "head" | "file" | "done" = "head";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === "head") {
        stage = "file";
        controller.enqueue(encoder.encode(head));
        return;
      }
      if (stage === "done") return;
      const next = await chunks.next();
      if (!next.done) {
        controller.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
        return;
      }
      stage = "done";
      controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
      controller.close();
    },
    async cancel(reason) {
      await chunks.return?.(reason);
    },
  });
  return { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** Web streams are async iterable in Node but not (yet) in every browser. */
async function* iterate(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
