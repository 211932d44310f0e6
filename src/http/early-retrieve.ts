import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { matchesTag } from "../cache/cached-retrieve.ts";
import { IGNORED_FIELDS_HEADER } from "./ignored-fields.ts";
import { MAX_BODY_TEXT } from "./json-body.ts";
import type { PreparedAnswer } from "./prepared-answer.ts";

/** The answer ready for a body text in the request's project, if an earlier request prepared one. */
export type FindPrepared = (request: FastifyRequest, bodyText: string) => PreparedAnswer | undefined;

export const JSON_UTF8 = "application/json; charset=utf-8";
// Other spellings reach the JSON parser too; they only miss the early answer.
const PLAIN_JSON = new Set(["application/json", JSON_UTF8]);

/**
 * A retrieve route's onRequest hook that answers a body already answered before (the hot path of every client
 * runtime) before Fastify parses, validates and routes it: the body's text finds the prepared answer (ETag,
 * serialised body, ignored fields), which was only ever made for a body that passed all of that. Any other request
 * (another body, a body still arriving, a cold cache) goes on unchanged, its body left unread.
 */
export function earlyRetrieve(find: FindPrepared): onRequestHookHandler {
  return (request, reply, done) => {
    if (!PLAIN_JSON.has(request.headers["content-type"] as string)) return done();
    // The hook runs as the headers are parsed; a body that came in the same read is in the stream once the HTTP
    // parser has gone through that read, by the next tick.
    process.nextTick(answerIfPrepared, request, reply, done, find);
  };
}

function answerIfPrepared(request: FastifyRequest, reply: FastifyReply, done: () => void, find: FindPrepared): void {
  const raw = request.raw;
  // All of the body is in when the stream holds as many bytes as Content-Length announced (the parser marks the
  // request complete a little later).
  const length = raw.readableLength;
  if (length === 0 || length > MAX_BODY_TEXT || length !== Number(request.headers["content-length"])) return done();
  const chunk = raw.read() as Buffer;
  const ready = find(request, chunk.toString("utf8"));
  if (ready === undefined) {
    raw.unshift(chunk); // for Fastify's body parser, as if it had never been read
    return done();
  }
  reply.header("etag", ready.tag);
  if (ready.ignored !== undefined) reply.header(IGNORED_FIELDS_HEADER, ready.ignored);
  if (matchesTag(request.headers["if-none-match"], ready.tag)) reply.code(304).send();
  else reply.type(JSON_UTF8).send(ready.body);
}
