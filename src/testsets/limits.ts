/** Testset limits an operator tunes through the environment (read at use, so tests can set them). */
function setting(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/** Rows a revision read inlines; past it clients page with `POST /testcases/query` or download. */
export const inlineLimit = () => setting("TESSERA_TESTSET_INLINE_LIMIT", 10_000);

/** Bytes an uploaded file may have; past it the upload is refused with 413 and nothing is committed. */
export const uploadLimit = () => setting("TESSERA_UPLOAD_LIMIT", 1024 ** 3);

/** Bytes one cell (a CSV field, a JSON row's value) may hold; past it the upload gets 413 naming the row. */
export const cellLimit = () => setting("TESSERA_CELL_LIMIT", 8 * 1024 ** 2);

/** Bytes one row may take in the file; the parser never holds more than this of one row (413 naming it). */
export const rowLimit = () => setting("TESSERA_ROW_LIMIT", 16 * 1024 ** 2);
