/**
 * Sets `key` as an own property of `target`. Attribute keys come from clients: assigning one named `__proto__`
 * would set the object's prototype instead of storing a value. Other keys are assigned (defining every one
 * costs a span a third more to normalise).
 */
export function setOwn(target: object, key: string | number, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else (target as Record<string | number, unknown>)[key] = value;
}
