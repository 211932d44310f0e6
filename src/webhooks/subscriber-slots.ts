/**
 * Deliveries in flight per subscription in this process, each subscription up to `limit`: a subscriber that hangs
 * holds at most that many of the process's delivery places, and the others' deliveries go on.
 */
export class SubscriberSlots {
  readonly #limit: number;
  readonly #held = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes a place for `subscriptionId`; false when it holds `limit` already. */
  take(subscriptionId: string): boolean {
    const held = this.#held.get(subscriptionId) ?? 0;
    if (held >= this.#limit) return false;
    this.#held.set(subscriptionId, held + 1);
    return true;
  }

  give(subscriptionId: string): void {
    const held = (this.#held.get(subscriptionId) ?? 1) - 1;
    if (held <= 0) this.#held.delete(subscriptionId);
    else this.#held.set(subscriptionId, held);
  }
}
