/**
 * Sets `key` as an own property of `target`. Attribute keys come from clients: assigning one named `__proto__`
 * would set the object's prototype instead of storing a value.
 */
export function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
