/**
 * At most `size` holders at once. When a permit frees, the waiter whose project holds the fewest goes next (the one
 * that waited longest among equals): a project's batches claimed ahead of another's do not keep it waiting.
 */
export class ProjectPermits {
  #free: number;
  readonly #held = new Map<string, number>();
  readonly #waiting: { project: string; grant: () => void }[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves once a permit is `project`'s; rejects if `signal` aborts first. */
  acquire(project: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      this.#take(project);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        project,
        grant: () => {
          signal.removeEventListener("abort", aborted);
          this.#take(project);
          resolve();
        },
      };
      const aborted = () => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      this.#waiting.push(waiter);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }

  /** Gives back a permit `project` holds. */
  release(project: string): void {
    const left = (this.#held.get(project) ?? 1) - 1;
    if (left > 0) this.#held.set(project, left);
    else this.#held.delete(project);
    let next = -1;
    for (const [i, w] of this.#waiting.entries()) {
      if (next < 0 || this.#holding(w.project) < this.#holding(this.#waiting[next]!.project)) next = i;
    }
    if (next < 0) this.#free++;
    else this.#waiting.splice(next, 1)[0]!.grant();
  }

  #holding(project: string): number {
    return this.#held.get(project) ?? 0;
  }

  #take(project: string): void {
    this.#held.set(project, this.#holding(project) + 1);
  }
}
