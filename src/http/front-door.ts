import {
  createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerOptions, type ServerResponse,
} from "node:http";
import type { FastifyServerFactory } from "fastify";
import type { Scope } from "../accounts/scope.ts";
import { matchesTag } from "../cache/cached-retrieve.ts";
import { knownScope } from "./authentication.ts";
import { IGNORED_FIELDS_HEADER } from "./ignored-fields.ts";
import { MAX_BODY_TEXT } from "./json-body.ts";
import type { PreparedAnswer } from "./prepared-answer.ts";
import { requestId } from "./request-id.ts";

/** The answer prepared for a body text in the project of `scope`, if an earlier request made one. */
export type FindPrepared = (scope: Scope, bodyText: string) => PreparedAnswer | undefined;

export const JSON_UTF8 = "application/json; charset=utf-8";
// Other spellings reach the JSON parser too; they only miss the front door.
const PLAIN_JSON = new Set(["application/json", JSON_UTF8]);

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
/** What Fastify's own server factory sets on the server it creates. */
interface ServerSettings {
  http?: ServerOptions;
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
  maxRequestsPerSocket: number;
}

/**
 * The server's first look at a request, before Fastify builds its request and reply. A retrieve whose body was
 * answered before (the hot path of every client runtime), sent with a key accepted moments ago, is answered here from
 * the answer prepared for that body text (ETag, serialised body, ignored fields): it was only ever made for a body that
 * passed parsing, validation and routing. Any other request (another path or body, a body still arriving, a key to
 * check, a cold cache) goes on to Fastify unchanged, its body unread.
 */
export class FrontDoor {
  readonly #routes = new Map<string, FindPrepared>();
  #open = true;

  /** Answers POSTs to `path` from `find`. */
  route(path: string, find: FindPrepared): void {
    this.#routes.set(path, find);
  }

  /** From now on every request goes to Fastify (a closing server answers 503 there). */
  close(): void {
    this.#open = false;
  }

  /** Fastify's `serverFactory`: the HTTP server Fastify would create, with this door in front of its handler. */
  readonly serverFactory: FastifyServerFactory = (handler, options) => {
    const o = options as unknown as ServerSettings; // Fastify's, with its defaults filled in
    const server = createServer(o.http ?? {}, (req, res) => this.#enter(req, res, handler));
    server.keepAliveTimeout = o.keepAliveTimeout;
    server.requestTimeout = o.requestTimeout;
    server.setTimeout(o.connectionTimeout);
    if (o.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = o.maxRequestsPerSocket;
    return server;
  };

  #enter(req: IncomingMessage, res: ServerResponse, next: Handler): void {
    const find = this.#open && req.method === "POST" ? this.#routes.get(req.url!) : undefined;
    if (find === undefined || !PLAIN_JSON.has(req.headers["content-type"]!)) return next(req, res);
    // The request event comes as its headers are parsed; a body that came in the same read is in the stream once
    // the HTTP parser has gone through that read, by the next tick.
    process.nextTick(answer, req, res, next, find);
  }
}

function answer(req: IncomingMessage, res: ServerResponse, next: Handler, find: FindPrepared): void {
  const scope = knownScope(req.headers.authorization);
  // All of the body is in when the stream holds as many bytes as Content-Length announced (the parser marks the
  // request complete a little later).
  const length = req.readableLength;
  const whole = length > 0 && length <= MAX_BODY_TEXT && length === Number(req.headers["content-length"]);
  if (scope === undefined || !whole) return next(req, res);
  const chunk = req.read() as Buffer;
  const ready = find(scope, chunk.toString("utf8"));
  if (ready === undefined) {
    req.unshift(chunk); // for Fastify's body parser, as if it had never been read
    return next(req, res);
  }
  const headers: OutgoingHttpHeaders = { "x-request-id": requestId(req), etag: ready.tag };
  if (ready.ignored !== undefined) headers[IGNORED_FIELDS_HEADER] = ready.ignored;
  if (matchesTag(req.headers["if-none-match"], ready.tag)) return void res.writeHead(304, headers).end();
  headers["content-type"] = JSON_UTF8;
  headers["content-length"] = ready.bytes.length;
  res.writeHead(200, headers).end(ready.bytes);
}
