import { createHash } from 'node:crypto';
import type { BodySerializer, SerializedBytes } from '@cds/response-cache';
import { z } from 'zod';
import { isKeptRender, itemJson, keptDataBytes } from '../series/kept-render.ts';

/** The id a checked body carries while it has none yet (the response cache adds it at send time). */
const CHECKED_REQUEST_ID = 'req_checked';

/**
 * The serializer of a route's 200 body, made once per route from its contract response schema
 * (routeSchema: `schema.response[200]`), for fastify's replies and the response cache alike.
 *
 * It writes JSON.stringify's bytes, members in the order the handler built them. A serializer
 * compiled from the schema (zod's JSON Schema through fast-json-stringify) would change the bytes:
 * it writes an object's required members before its optional ones, so `request_id` would no longer
 * be the last member of `meta`, where the response cache and the gateway splice each request's id
 * (@cds/response-cache cached-body.ts); and a COT report's members follow its stored document, not
 * the schema. With the required lists dropped and request_id moved last it matched JSON.stringify
 * on the list, detail and series answers of the query unit specs, but not on the COT ones, and it
 * was slower on list, detail and COT answers: the answers are serialized once per cache entry.
 *
 * `check` (the specs): every body is parsed with the schema first, so a handler's answer outside its
 * contract is a 500 in a test, never an answer; off in production, where it would cost a parse of
 * every body.
 */
export function responseSerializer(schema: z.ZodType, check: boolean): BodySerializer {
  if (!check) return serializeAnswer;
  return (body) => {
    const requestId = body.meta.request_id;
    const candidate = requestId === '' ? { ...body, meta: { ...body.meta, request_id: CHECKED_REQUEST_ID } } : body;
    const result = schema.safeParse(candidate);
    if (!result.success) {
      throw new Error(`The answer does not fit its contract schema: ${z.prettifyError(result.error)}`);
    }
    return serializeAnswer(body);
  };
}

const OPEN = Buffer.from('{"data":[');

/**
 * JSON.stringify's bytes of `{data, meta}`. A `data` of kept rendered points (series/kept-render.ts)
 * is not stringified again: points of kept years come as slices of their years' bytes, with a hash
 * made from the years' digests, the runs taken and the rest of the bytes (the response cache keeps
 * it as the answer's hash, so its ETag); other kept points are joined from their kept texts.
 */
function serializeAnswer(body: { data: unknown; meta: Record<string, unknown> }): string | SerializedBytes {
  const { data } = body;
  if (!Array.isArray(data) || data.length === 0 || !isKeptRender(data[0])) return JSON.stringify(body);
  const meta = JSON.stringify(body.meta);
  const kept = keptDataBytes(data);
  if (kept !== undefined) {
    const tail = Buffer.from(`],"meta":${meta}}`);
    const hash = createHash('sha256').update(kept.runs).update(tail).digest('base64url');
    return { pieces: [OPEN, ...kept.pieces, tail], hash };
  }
  let out = '{"data":[';
  for (let i = 0; i < data.length; i += 1) out += (i === 0 ? '' : ',') + itemJson(data[i]);
  return `${out}],"meta":${meta}}`;
}

/** A serializer's answer as text (fastify's replies outside the response cache). */
export function asText(serialized: string | SerializedBytes): string {
  return typeof serialized === 'string' ? serialized : Buffer.concat(serialized.pieces).toString('utf8');
}
