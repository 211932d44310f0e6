import { createConnection, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of the test PostgreSQL that the test can cut: every open connection is dropped
 * and new ones are closed at once (as a restart or a failover looks to a client) until `restore`.
 */
export interface TcpProxy {
  port: number;
  /** Connections closed at once because the proxy was cut. */
  readonly refused: number;
  /** DATABASE_URL `url` pointed at this proxy instead. */
  through(url: string): string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let cut = false;
  let refused = 0;
  const server = createServer((client) => {
    if (cut) {
      refused++;
      return client.destroy();
    }
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s)).on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get refused() {
      return refused;
    },
    through(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
