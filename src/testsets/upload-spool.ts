import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";

/** Bytes of lines a spool holds in memory; past it they go to a temporary file. */
const IN_MEMORY = 8 * 1024 * 1024;
/** Bytes written to, or read from, the file at a time. */
const BLOCK = 1024 * 1024;

/**
 * Lines (without a line break) kept in order until they are read back once: in memory while they are
 * few, else in a temporary file that has no name (it is unlinked as soon as it is opened), so that it
 * disappears when the spool is closed or the process dies.
 */
export class UploadSpool {
  private held: string[] = [];
  private heldBytes = 0;
  private file: FileHandle | null = null;
  private written = 0;

  /** Appends a line, or several joined by line breaks. */
  async push(line: string) {
    this.held.push(line);
    this.heldBytes += line.length;
    if (this.heldBytes >= (this.file ? BLOCK : IN_MEMORY)) await this.spill();
  }

  /** The lines pushed, in order. */
  async *lines(): AsyncGenerator<string> {
    if (!this.file) {
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      for (const lines of held) yield* lines.split("\n");
      return;
    }
    await this.spill();
    const decoder = new StringDecoder("utf8");
    const block = Buffer.alloc(BLOCK);
    let rest = "";
    for (let at = 0; at < this.written;) {
      const { bytesRead } = await this.file.read(block, 0, Math.min(BLOCK, this.written - at), at);
      if (!bytesRead) break;
      at += bytesRead;
      const parts = (rest + decoder.write(block.subarray(0, bytesRead))).split("\n");
      rest = parts.pop()!;
      yield* parts;
    }
  }

  /** Frees what the spool holds (its file included). */
  async close() {
    this.held = [];
    this.heldBytes = 0;
    await this.file?.close();
    this.file = null;
  }

  private async spill() {
    if (!this.file) {
      const dir = await mkdtemp(join(tmpdir(), "tessera-upload-"));
      try {
        this.file = await open(join(dir, "rows"), "w+", 0o600);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    if (!this.held.length) return;
    const bytes = Buffer.from(`${this.held.join("\n")}\n`);
    this.held = [];
    this.heldBytes = 0;
    await this.file.write(bytes, 0, bytes.length, this.written);
    this.written += bytes.length;
  }
}
