import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowBlock } from "./row-block.ts";

/** Bytes of blocks a spool holds in memory; past it they go to a temporary file. */
const IN_MEMORY = 8 * 1024 * 1024;
/** Bytes gathered before a write to the file. */
const WRITE = 1024 * 1024;
/** A block in the file: its COPY text's length, its rows, its claimed rows' JSON length; then those two. */
const HEADER = 12;

const sizeOf = (block: RowBlock) =>
  block.claimed.reduce((n, c) => n + c.line.length + c.stored.length, block.copy.byteLength);

/**
 * Blocks of rows kept in order until they are read back once: in memory while they are few, else in a temporary file
 * that has no name (it is unlinked as soon as it is opened), so that it disappears when the spool is closed or the
 * process dies.
 */
export class UploadSpool {
  private held: RowBlock[] = [];
  private heldBytes = 0;
  private file: FileHandle | null = null;
  private written = 0;

  async push(block: RowBlock) {
    this.held.push(block);
    this.heldBytes += sizeOf(block);
    if (this.heldBytes >= (this.file ? WRITE : IN_MEMORY)) await this.spill();
  }

  /** The blocks pushed, in order. */
  async *blocks(): AsyncGenerator<RowBlock> {
    if (!this.file) {
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      yield* held;
      return;
    }
    await this.spill();
    const header = Buffer.alloc(HEADER);
    for (let at = 0; at < this.written;) {
      await this.read(header, at);
      const copyLength = header.readUInt32LE(0);
      const rows = header.readUInt32LE(4);
      const claimedLength = header.readUInt32LE(8);
      const body = Buffer.allocUnsafeSlow(copyLength + claimedLength);
      await this.read(body, at + HEADER);
      at += HEADER + body.length;
      const claimed = claimedLength ? JSON.parse(body.toString("utf8", copyLength)) : [];
      yield { copy: body.subarray(0, copyLength), rows, claimed };
    }
  }

  /** Frees what the spool holds (its file included). */
  async close() {
    this.held = [];
    this.heldBytes = 0;
    await this.file?.close();
    this.file = null;
  }

  private async read(into: Buffer, position: number) {
    for (let got = 0; got < into.length;) {
      const { bytesRead } = await this.file!.read(into, got, into.length - got, position + got);
      if (!bytesRead) throw new Error("An upload's spool file ended early");
      got += bytesRead;
    }
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
    const parts: Buffer[] = [];
    for (const block of this.held) {
      const claimed = block.claimed.length ? Buffer.from(JSON.stringify(block.claimed)) : Buffer.alloc(0);
      const header = Buffer.alloc(HEADER);
      header.writeUInt32LE(block.copy.byteLength, 0);
      header.writeUInt32LE(block.rows, 4);
      header.writeUInt32LE(claimed.length, 8);
      parts.push(header, Buffer.from(block.copy.buffer, block.copy.byteOffset, block.copy.byteLength), claimed);
    }
    this.held = [];
    this.heldBytes = 0;
    const bytes = Buffer.concat(parts);
    await this.file.write(bytes, 0, bytes.length, this.written);
    this.written += bytes.length;
  }
}
