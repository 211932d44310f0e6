/**
 * Things compiled at their first use rather than as the server starts (route validators and serializers: compiling
 * every route's schemas took more than a second of a start, for routes a given server may never be asked), with the
 * ones not used yet kept so that `compileEvery` can still compile them all, as a test does.
 */
export class FirstUse {
  readonly #pending = new Set<() => unknown>();

  /** What `compile` makes, made at the first call of the returned function and kept. */
  defer<T>(compile: () => T): () => T {
    let made: T | undefined;
    let done = false;
    const get = (): T => {
      if (!done) {
        made = compile();
        done = true;
        this.#pending.delete(get);
      }
      return made as T;
    };
    this.#pending.add(get);
    return get;
  }

  /** Makes everything not made yet (a failure to compile throws here); returns how many. */
  compileEvery(): number {
    const pending = [...this.#pending];
    for (const get of pending) get();
    return pending.length;
  }
}
