// Control characters (C0, DEL, C1) are dropped; path separators would let a client save outside its folder.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const SEPARATORS = /[/\\]/g;
// RFC 8187 attr-char: what a `filename*` value may carry unencoded (encodeURIComponent also leaves ' ( ) * alone).
const NOT_ATTR_CHAR = /['()*]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * An `attachment` Content-Disposition for any file name (RFC 6266): `filename` holds an ASCII
 * fallback (other characters and quotes become `_`), `filename*` the name in UTF-8. Control
 * characters are dropped and path separators become `_`; a name left empty is `fallback`.
 */
export function attachment(name: string, fallback: string): string {
  const clean = name.replace(LONE_SURROGATE, "\ufffd").replace(CONTROL, "").replace(SEPARATORS, "_") || fallback;
  const ascii = clean.replace(/[^\x20-\x7e]|"/gu, "_");
  const utf8 = encodeURIComponent(clean).replace(NOT_ATTR_CHAR, (c) => `%${c.charCodeAt(0).toString(16)}`.toUpperCase());
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
