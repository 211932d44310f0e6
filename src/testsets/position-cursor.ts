/**
 * The cursor of revision-ordered testcase pages: the position of the next row in the revision's id
 * list, written as a UUID so it fits `windowing.next` (format uuid). Its version and variant nibbles
 * are 0, which no testcase id has (those are version 8), so it cannot be mistaken for an id. A
 * position, unlike the last id seen, pages duplicate rows correctly and lets a page read only the
 * chunks that cover it.
 */
const PREFIX = "00000000-0000-0000-0000-";
const PATTERN = /^00000000-0000-0000-0000-([0-9a-f]{12})$/i;

export const positionCursor = (position: number): string => PREFIX + position.toString(16).padStart(12, "0");

/** The position a cursor names, or null when it is not a position cursor (an older last-id cursor). */
export function cursorPosition(next: string): number | null {
  const match = PATTERN.exec(next);
  return match ? parseInt(match[1], 16) : null;
}
