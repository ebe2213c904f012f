import {
  BULK_MEDIA_TYPES,
  parseBulkFileName,
  ROUTES_BY_NAME,
  type BulkFile,
  type BulkListResponse,
} from '@cds/contracts';
import {
  ApiError,
  evaluateConditional,
  formatHttpDate,
  negotiate,
  NOT_ACCEPTABLE_JSON_ONLY_MESSAGE,
  NotAcceptableError,
  NotFoundError,
} from '@cds/http';
import { BULK_CHUNK_BYTES, type BulkFileStore } from '@cds/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { routeSchema, type QueryApp } from '../http/route-context.ts';
import { ifRangeHolds, parseRange } from './range.ts';

/**
 * How long a copy may be used without asking: a file (named by its content's sha256) for 5 minutes;
 * the list, which a new generation changes (the gateway may keep it that long), for one.
 */
const FILE_CACHE_CONTROL = 'private, max-age=300';
const LIST_CACHE_CONTROL = 'private, max-age=60';

/** Answers 304 when the request's precondition matches these validators (headers set first). */
function notModified(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  lastModified: Date | undefined,
  cacheControl: string,
): boolean {
  reply.header('etag', etag).header('cache-control', cacheControl);
  if (lastModified !== undefined) reply.header('last-modified', formatHttpDate(lastModified));
  return evaluateConditional(request.headers, { etag, lastModified, now: new Date() }) === 'not-modified';
}

/** The bytes `start`..`end` (inclusive) of a stored file, read chunk by chunk as the client takes them. */
async function* fileBytes(
  files: BulkFileStore,
  generation: string,
  file: string,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  for (let n = Math.floor(start / BULK_CHUNK_BYTES); n * BULK_CHUNK_BYTES <= end; n++) {
    const chunk = await files.chunk(generation, file, n);
    // Dropped by a later generation's job while this download ran: end the answer short (the
    // client sees a truncated body and retries) rather than send bytes of another file.
    if (chunk === null) throw new Error(`bulk file ${file} of generation ${generation} is gone (chunk ${n})`);
    const at = n * BULK_CHUNK_BYTES;
    yield chunk.subarray(Math.max(0, start - at), Math.min(chunk.length, end + 1 - at));
  }
}

/**
 * GET /bulk (the manifest of the current files) and GET /bulk/:file (a file's bytes, whole or one
 * range), read from the bulk file store the projector's job fills (`npm run projector -- bulk`).
 * The plan rules (which plan may download a file) are the gateway's; this service serves what it is
 * asked for.
 */
export function registerBulkRoutes(app: QueryApp, files: BulkFileStore): void {
  // Neither takes query parameters (an unknown one is the contract's 400, as everywhere).
  app.get(ROUTES_BY_NAME.bulk.path, { schema: routeSchema(ROUTES_BY_NAME.bulk) }, async (request, reply) => {
    if (negotiate(request.headers.accept, ['json']) === undefined) {
      throw new NotAcceptableError(NOT_ACCEPTABLE_JSON_ONLY_MESSAGE);
    }
    const manifest = await files.manifest();
    reply.header('vary', 'Accept');
    const etag = `"bulk-${manifest?.generation ?? 'none'}"`;
    const lastModified = manifest === null ? undefined : new Date(manifest.generated_at);
    if (notModified(request, reply, etag, lastModified, LIST_CACHE_CONTROL)) return reply.code(304).send();
    const data: BulkFile[] = [...(manifest?.files ?? [])].sort((a, b) => (a.file < b.file ? -1 : 1));
    const body: BulkListResponse = {
      data,
      meta: { generated_at: manifest?.generated_at ?? null, request_id: String(request.id) },
    };
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.get(ROUTES_BY_NAME.bulkFile.path, { schema: routeSchema(ROUTES_BY_NAME.bulkFile) }, async (request, reply) => {
    const { file } = request.params;
    const unknown = () => new NotFoundError(`No bulk file named '${file}': GET /api/v1/bulk lists them.`, 'file');
    const name = parseBulkFileName(file);
    if (name === undefined) throw unknown();
    const manifest = await files.manifest();
    const entry = manifest?.files.find((f) => f.file === file);
    if (manifest === null || entry === undefined) throw unknown();

    const etag = `"${entry.sha256}"`;
    const lastModified = new Date(entry.generated_at);
    if (notModified(request, reply, etag, lastModified, FILE_CACHE_CONTROL)) return reply.code(304).send();
    const size = entry.bytes;
    const range = ifRangeHolds(request.headers['if-range'], { etag, lastModified })
      ? parseRange(request.headers.range, size)
      : ({ kind: 'whole' } as const);
    if (range.kind === 'unsatisfiable') {
      reply.removeHeader('etag').removeHeader('last-modified');
      throw new ApiError('range_not_satisfiable', `The range lies outside the file's ${size} bytes.`, {
        param: 'Range',
        headers: { 'content-range': `bytes */${size}` },
      });
    }
    reply
      .header('accept-ranges', 'bytes')
      .header('content-disposition', `attachment; filename="${entry.file}"`)
      .type(BULK_MEDIA_TYPES[name.format]);
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
    if (range.kind === 'partial') reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
    reply.header('content-length', String(end - start + 1));
    if (end < start) return reply.send(Buffer.alloc(0));
    return reply.send(Readable.from(fileBytes(files, manifest.generation, entry.file, start, end)));
  });
}
