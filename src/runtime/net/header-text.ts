/** An HTTP field name (RFC 9110 token). */
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value this server writes: printable ASCII, space and tab (no CR, LF, NUL or non-ASCII). */
const VALUE = /^[\t\x20-\x7e]*$/;

export const isHeaderName = (name: string): boolean => NAME.test(name);
export const isHeaderValue = (value: string): boolean => VALUE.test(value);

/**
 * The first header of a set to send that HTTP cannot carry, with what is wrong in words naming it, or
 * null when every name is a token and every string value can be sent as it is (other values are
 * references, not header text, and are skipped).
 */
export function headerProblem(headers: Record<string, unknown>): { name: string; detail: string } | null {
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderName(name)) return { name, detail: `Header name ${JSON.stringify(name)} is not a valid HTTP header name` };
    if (typeof value === "string" && !isHeaderValue(value)) {
      const detail = `Header ${name} holds characters an HTTP header cannot carry (CR, LF, NUL, other control or non-ASCII)`;
      return { name, detail };
    }
  }
  return null;
}
