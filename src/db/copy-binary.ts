/*
 * Rows in PostgreSQL's binary COPY format (`COPY … FROM STDIN WITH (FORMAT binary)`), for the bulk loads the
 * database spends most on: each field is its length and its bytes, so the database neither scans the rows for
 * delimiters and escapes nor parses uuids and times from text. On the embedded database a span's COPY costs about
 * a fifth less this way than as text (bench/span-copy.ts).
 */

/** The format's signature, its flags and its header extension's length (none). */
export const BINARY_HEADER = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** A field count of -1 ends the data. */
export const BINARY_TRAILER = Buffer.from([0xff, 0xff]);

/** A COPY's data: the header, the rows (tuples as `BinaryRows` writes them, in parts), the trailer. */
export const binaryCopyData = (rows: Buffer[]): Buffer[] => [BINARY_HEADER, ...rows, BINARY_TRAILER];

/** Seconds from the Unix epoch to PostgreSQL's (2000-01-01). */
const PG_EPOCH_S = 946_684_800;

/** The number of the `count` decimal digits of `text` at `at`, or NaN if one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ` (what spans are written in) read by its digits; null for text of another shape.
 * Throws on a date or time of that shape that does not exist, as the database would.
 */
function isoMicros(iso: string): { seconds: number; micros: number } | null {
  if (iso.length !== 27 || iso[4] !== "-" || iso[7] !== "-" || iso[10] !== "T" || iso[13] !== ":" || iso[16] !== ":" ||
    iso[19] !== "." || iso[26] !== "Z") return null;
  const [y, mo, d] = [digits(iso, 0, 4), digits(iso, 5, 2), digits(iso, 8, 2)];
  const [h, mi, s, micros] = [digits(iso, 11, 2), digits(iso, 14, 2), digits(iso, 17, 2), digits(iso, 20, 6)];
  // NaN (a character that is no digit) fails every comparison.
  const exists = mo >= 1 && mo <= 12 && d >= 1 && d <= DAYS_IN_MONTH[mo - 1]! && (mo !== 2 || d < 29 || leap(y)) &&
    h < 24 && mi < 60 && s < 60 && micros >= 0 && y >= 0;
  if (!exists) throw new Error(`not a time: ${iso}`);
  return { seconds: ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60 + s, micros };
}

/**
 * An ISO 8601 time as seconds since 1970 and microseconds into that second: the `…T…:….ffffffZ` that spans are
 * written in by its digits, any other that `Date.parse` reads to the millisecond (and the fraction's digits past
 * it). Throws on text that is no time.
 */
export function timeOf(iso: string): { seconds: number; micros: number } {
  const exact = isoMicros(iso);
  if (exact) return exact;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not a time: ${iso}`);
  const seconds = Math.floor(ms / 1000);
  const fraction = /\.\d{3}(\d{1,3})/.exec(iso)?.[1]?.padEnd(3, "0");
  return { seconds, micros: (ms - seconds * 1000) * 1000 + (fraction ? +fraction : 0) };
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** Hex digits' values by character code. */
const HEX: number[] = [];
for (let d = 0; d < 16; d++) HEX[d.toString(16).charCodeAt(0)] = HEX[d.toString(16).toUpperCase().charCodeAt(0)] = d;
/** Texts up to this long are checked for ASCII and copied by hand. */
const SHORT_TEXT = 64;

/** Tuples of binary COPY written one field at a time into a buffer that grows as needed. */
export class BinaryRows {
  #buffer: Buffer;
  #at = 0;

  constructor(capacity = 64 * 1024) {
    this.#buffer = Buffer.allocUnsafe(capacity);
  }

  /** Bytes written since the last `take`. */
  get length(): number {
    return this.#at;
  }

  /** Starts a row of `fields` fields. */
  row(fields: number): this {
    this.#room(2);
    this.#at = this.#buffer.writeInt16BE(fields, this.#at);
    return this;
  }

  null(): this {
    this.#room(4);
    this.#at = this.#buffer.writeInt32BE(-1, this.#at);
    return this;
  }

  /** A uuid as text (with or without hyphens). */
  uuid(value: string | null): this {
    if (value === null) return this.null();
    this.#room(20);
    const buffer = this.#buffer;
    let at = buffer.writeInt32BE(16, this.#at);
    const end = at + 16;
    for (let i = 0; i < value.length && at < end; i++) {
      const high = HEX[value.charCodeAt(i)] ?? -1;
      if (high < 0 && value[i] === "-") continue;
      const low = HEX[value.charCodeAt(++i)] ?? -1;
      if (high < 0 || low < 0) break;
      buffer[at++] = (high << 4) | low;
    }
    if (at !== end || (value.length !== 32 && value.length !== 36)) throw new Error(`not a uuid: ${value}`);
    this.#at = end;
    return this;
  }

  /** Text, as UTF-8 (a text column takes no U+0000: the caller drops it). */
  text(value: string | null): this {
    return value === null ? this.null() : this.#utf8(value, false);
  }

  /** JSON text for a jsonb column (its binary form is a version byte, 1, and the text). */
  jsonb(value: string | null): this {
    return value === null ? this.null() : this.#utf8(value, true);
  }

  /** A time (see `timeOf`) for a timestamptz column: microseconds since 2000-01-01 as a 64-bit integer. */
  timestamptz(iso: string): this {
    const { seconds, micros } = timeOf(iso);
    this.#room(12);
    const at = this.#buffer.writeInt32BE(8, this.#at);
    const us = (seconds - PG_EPOCH_S) * 1e6 + micros;
    if (Number.isSafeInteger(us)) {
      // Number arithmetic while the count is exact (from 1715 to 2285); BigInt's costs more.
      const high = Math.floor(us / 2 ** 32);
      this.#buffer.writeInt32BE(high, at);
      this.#buffer.writeUInt32BE(us - high * 2 ** 32, at + 4);
    } else {
      this.#buffer.writeBigInt64BE(BigInt(seconds - PG_EPOCH_S) * 1_000_000n + BigInt(micros), at);
    }
    this.#at = at + 8;
    return this;
  }

  /** Forgets what was written after the first `length` bytes (a row that could not be written whole). */
  rewind(length: number): void {
    this.#at = Math.min(this.#at, length);
  }

  /** The tuples written since the last call, copied out (a small copy shares Node's pool); starts again empty. */
  take(): Buffer {
    const taken = Buffer.from(this.#buffer.subarray(0, this.#at));
    this.#at = 0;
    return taken;
  }

  /** As `take`, in a buffer that owns its memory: one that can be handed to another thread. */
  takeOwned(): Buffer {
    return this.#taken([]);
  }

  /** As `takeOwned`, with the header and the trailer: a whole COPY's data. */
  takeCopy(): Buffer {
    return this.#taken([BINARY_HEADER], BINARY_TRAILER);
  }

  #taken(before: Buffer[], after?: Buffer): Buffer {
    const parts = [...before, this.#buffer.subarray(0, this.#at), ...(after ? [after] : [])];
    const taken = Buffer.allocUnsafeSlow(parts.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of parts) at += part.copy(taken, at);
    this.#at = 0;
    return taken;
  }

  #utf8(value: string, jsonb: boolean): this {
    // UTF-8 takes at most 3 bytes for each UTF-16 unit.
    this.#room(5 + value.length * 3);
    const buffer = this.#buffer;
    const start = this.#at + 4;
    if (jsonb) buffer[start] = 1;
    const body = jsonb ? start + 1 : start;
    let end = body;
    // Short ASCII text (names, kinds, ids) is copied here: a call into Node's encoder costs more than it.
    if (value.length <= SHORT_TEXT) {
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) {
          end = -1;
          break;
        }
        buffer[end++] = c;
      }
    } else {
      end = -1;
    }
    if (end < 0) end = body + buffer.write(value, body, "utf8");
    buffer.writeInt32BE(end - start, this.#at);
    this.#at = end;
    return this;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#at + bytes));
    this.#buffer.copy(grown, 0, 0, this.#at);
    this.#buffer = grown;
  }
}

/** Each tuple of `data` (tuples as `BinaryRows` writes them, or a whole COPY's data), as a view of its bytes. */
export function* binaryTuples(data: Buffer): Generator<Buffer> {
  let at = data.subarray(0, 11).equals(BINARY_HEADER.subarray(0, 11)) ? BINARY_HEADER.length : 0;
  while (at < data.length) {
    const start = at;
    const fields = data.readInt16BE(at);
    if (fields < 0) return;
    at += 2;
    for (let f = 0; f < fields; f++) {
      const length = data.readInt32BE(at);
      at += 4 + Math.max(length, 0);
    }
    yield data.subarray(start, at);
  }
}

/** The `index`th field of a tuple, as written (null for SQL NULL). */
export function tupleField(tuple: Buffer, index: number): Buffer | null {
  let at = 2;
  for (let f = 0; f < index; f++) at += 4 + Math.max(tuple.readInt32BE(at), 0);
  const length = tuple.readInt32BE(at);
  return length < 0 ? null : tuple.subarray(at + 4, at + 4 + length);
}
