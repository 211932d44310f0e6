import { createConnection, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of the test PostgreSQL that the test can cut: open connections are dropped and
 * new ones closed at once (as a restart or a failover looks to a client) until `restore`. A cut can be
 * limited to the connections whose startup message (which carries application_name) contains a text.
 */
export interface TcpProxy {
  port: number;
  /** Connections closed at once because the proxy was cut. */
  readonly refused: number;
  /** DATABASE_URL `url` pointed at this proxy instead. */
  through(url: string): string;
  cut(only?: string): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const open = new Map<Socket, { upstream: Socket; startup: string }>();
  let cut: string | null = null;
  let refused = 0;
  const blocked = (startup: string) => cut !== null && startup.includes(cut);
  const server = createServer((client) => {
    client.on("error", () => {});
    // The first packet is the startup message: forwarded once it is known not to be cut.
    client.once("data", (first: Buffer) => {
      const startup = first.toString("latin1");
      if (blocked(startup)) {
        refused++;
        return client.destroy();
      }
      const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      upstream.on("error", () => {});
      open.set(client, { upstream, startup });
      upstream.write(first);
      client.pipe(upstream).pipe(client);
      client.on("close", () => {
        open.delete(client);
        upstream.destroy();
      });
      upstream.on("close", () => client.destroy());
    });
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
    cut(only = "") {
      cut = only;
      for (const [client, { upstream, startup }] of open) {
        if (!blocked(startup)) continue;
        client.destroy();
        upstream.destroy();
      }
    },
    restore() {
      cut = null;
    },
    async close() {
      for (const [client, { upstream }] of open) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
