import { createReadStream } from "node:fs";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";

/**
 * The floor under testset upload and download: PostgreSQL's own COPY of the same CSV rows into and
 * out of a plain table (pg + pg-copy-streams), with no parsing, hashing or chunking of ours.
 */
export async function copyIn(databaseUrl: string, table: string, file: string): Promise<{ rows: number; ms: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.query(`CREATE TABLE ${table} (input text, expected text, category text)`);
    const started = performance.now();
    const sink = client.query(copyFrom(`COPY ${table} FROM STDIN WITH (FORMAT csv, HEADER true)`));
    await pipeline(createReadStream(file), sink);
    return { rows: Number(sink.rowCount), ms: performance.now() - started };
  } finally {
    await client.end();
  }
}

export async function copyOut(databaseUrl: string, table: string): Promise<{ rows: number; bytes: number; ms: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let bytes = 0;
    let rows = 0;
    const started = performance.now();
    const source = client.query(copyTo(`COPY ${table} TO STDOUT WITH (FORMAT csv, HEADER true)`));
    await pipeline(source, new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
        done();
      },
    }));
    return { rows: rows - 1, bytes, ms: performance.now() - started };
  } finally {
    await client.end();
  }
}

/** Runs `work` with a client on `databaseUrl`, closing it after. */
export async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
