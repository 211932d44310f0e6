/** Bytes moved by an upload or download, on stderr: a redrawn bar on a terminal, a line now and then otherwise. */

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = n;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** Where to draw; stderr by default. */
  stream?: Terminal;
  /** Between plain lines when the stream is not a terminal. */
  lineEveryMs?: number;
  now?: () => number;
  /** Draw nothing (the data itself is going to the same terminal). */
  quiet?: boolean;
}

export class Progress {
  readonly #label: string;
  readonly #total: number | null;
  readonly #stream: Terminal;
  readonly #tty: boolean;
  readonly #quiet: boolean;
  readonly #lineEveryMs: number;
  readonly #now: () => number;
  readonly #started: number;
  #bytes = 0;
  #lastDraw = 0;
  #drawn = false;

  constructor(label: string, total: number | null, options: ProgressOptions = {}) {
    this.#label = label;
    this.#total = total;
    this.#stream = options.stream ?? process.stderr;
    this.#tty = this.#stream.isTTY === true;
    this.#quiet = options.quiet === true;
    this.#lineEveryMs = options.lineEveryMs ?? 5_000;
    this.#now = options.now ?? Date.now;
    this.#started = this.#lastDraw = this.#now();
  }

  get bytes(): number {
    return this.#bytes;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#quiet) return;
    const now = this.#now();
    if (this.#tty ? now - this.#lastDraw >= 100 : now - this.#lastDraw >= this.#lineEveryMs) this.#draw(now);
  }

  /** The last state, on a terminal; plain output adds nothing for a transfer too short to have printed. */
  done(): void {
    if (this.#tty && !this.#quiet) {
      this.#draw(this.#now());
      this.#stream.write("\n");
    }
  }

  /** Leaves the terminal on a fresh line when the transfer fails half way. */
  abort(): void {
    if (this.#tty && this.#drawn) this.#stream.write("\n");
  }

  #status(now: number): string {
    const seconds = Math.max((now - this.#started) / 1000, 0.001);
    const rate = `${formatBytes(Math.round(this.#bytes / seconds))}/s`;
    const amount = this.#total ? `${formatBytes(this.#bytes)} / ${formatBytes(this.#total)}` : formatBytes(this.#bytes);
    return `${amount}  ${rate}`;
  }

  #draw(now: number): void {
    this.#lastDraw = now;
    this.#drawn = true;
    const fraction = this.#total ? Math.min(this.#bytes / this.#total, 1) : null;
    const percent = fraction === null ? "" : `${String(Math.floor(fraction * 100)).padStart(3)}%  `;
    if (!this.#tty) {
      this.#stream.write(`${this.#label}: ${percent}${this.#status(now)}\n`);
      return;
    }
    const text = `${percent}${this.#status(now)}`;
    const room = (this.#stream.columns || 80) - this.#label.length - text.length - 6;
    const width = Math.min(Math.max(room, 0), 40);
    const bar = fraction === null || width < 10 ? "" : `[${"#".repeat(Math.round(fraction * width)).padEnd(width, "-")}] `;
    this.#stream.write(`\r${this.#label}  ${bar}${text}\x1b[K`);
  }
}

/** Passes chunks through, counting them. */
export async function* counted(chunks: AsyncIterable<Uint8Array | string>, progress: Progress): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    progress.add(bytes.byteLength);
    yield bytes;
  }
}
