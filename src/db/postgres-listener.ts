import pg from "pg";

/** What a subscriber hears of the connection: its loss, then the moment it is listening again. */
export interface ListenerEvents {
  lost?(error: Error): void;
  restored?(): void;
}

interface Subscriber {
  channel: string;
  onMessage(payload: string): void;
  events: ListenerEvents;
}

// A lost connection is retried after 100 ms, doubling up to this: back within a second of PostgreSQL.
const RETRY_MAX_MS = 1_000;

const quote = (channel: string) => `"${channel.replace(/"/g, "")}"`;

/**
 * Every LISTEN of a process on one connection of its own, outside the pool, that survives the database:
 * when the connection is lost every subscriber hears it once, the listener reconnects with backoff and
 * runs LISTEN again for every channel, then every subscriber hears that it is back. The first connection
 * must succeed (the caller is starting); only later losses are retried. The connection is opened by the
 * first subscriber and closed when the last one leaves.
 */
export class PostgresListener {
  readonly #config: pg.ClientConfig;
  readonly #subscribers = new Set<Subscriber>();
  #client: pg.Client | null = null;
  #connecting: Promise<void> | null = null;
  #retry: NodeJS.Timeout | undefined;
  #delay = 100;
  #lost = false;

  constructor(config: pg.ClientConfig) {
    this.#config = { ...config, statement_timeout: undefined, query_timeout: undefined };
  }

  /** Calls `onMessage` for each NOTIFY on `channel` until the returned function is called. */
  async subscribe(channel: string, onMessage: (payload: string) => void, events: ListenerEvents = {}): Promise<() => Promise<void>> {
    const subscriber = { channel, onMessage, events };
    const known = this.#channels().has(channel);
    this.#subscribers.add(subscriber);
    try {
      if (this.#client && !known) await this.#client.query(`LISTEN ${quote(channel)}`);
      else if (!this.#client && !this.#lost) await (this.#connecting ??= this.#connect().finally(() => (this.#connecting = null)));
    } catch (error) {
      this.#subscribers.delete(subscriber);
      throw error;
    }
    return async () => {
      if (!this.#subscribers.delete(subscriber)) return;
      if (this.#subscribers.size === 0) return this.stop();
      if (!this.#channels().has(channel)) await this.#client?.query(`UNLISTEN ${quote(channel)}`).catch(() => {});
    };
  }

  /** Closes the connection and forgets every subscriber. */
  async stop(): Promise<void> {
    this.#subscribers.clear();
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    this.#lost = false;
    if (client) await client.end().catch(() => {});
  }

  #channels(): Set<string> {
    return new Set([...this.#subscribers].map((s) => s.channel));
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config);
    let dropped = false;
    const drop = (error: Error) => {
      if (dropped) return;
      dropped = true;
      client.removeAllListeners("notification");
      client.end().catch(() => {});
      if (this.#client !== client) return;
      this.#client = null;
      this.#lost = true;
      for (const s of this.#subscribers) s.events.lost?.(error);
      this.#schedule();
    };
    client.on("error", drop);
    client.on("end", () => drop(new Error("connection ended")));
    client.on("notification", (m) => {
      for (const s of this.#subscribers) if (s.channel === m.channel) s.onMessage(m.payload ?? "");
    });
    try {
      await client.connect();
      for (const channel of this.#channels()) await client.query(`LISTEN ${quote(channel)}`);
    } catch (error) {
      dropped = true;
      client.removeAllListeners("notification");
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#subscribers.size === 0) {
      dropped = true;
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
  }

  #schedule(): void {
    this.#retry = setTimeout(async () => {
      if (this.#subscribers.size === 0) return;
      try {
        await this.#connect();
        this.#delay = 100;
        this.#lost = false;
        for (const s of this.#subscribers) s.events.restored?.();
      } catch {
        this.#delay = Math.min(this.#delay * 2, RETRY_MAX_MS);
        this.#schedule();
      }
    }, this.#delay);
  }
}
