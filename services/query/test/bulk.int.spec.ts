import { bulkFilePlans, type BulkFile } from '@cds/contracts';
import { BULK_CHUNK_BYTES, createBulkFileStore, type BulkFileStore } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { buildApp, createMongoRepository, createResponseCache } from '../src/index.ts';
import { createQueryResponseValidator } from '../src/testing/index.ts';

// GET /bulk and /bulk/:file of the query service over the bulk file store on the testkit's
// MongoDB API server (FerretDB): files published as the projector's job publishes them, one of
// them larger than a chunk so ranges cross chunk boundaries.

const validate = createQueryResponseValidator();
const validateAnswer = createOpenApiResponseValidator();
/** The rate headers only the gateway adds, for checking a file answer against the document. */
const GATEWAY_HEADERS = {
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '99',
  'x-ratelimit-reset': '1700000000',
  'ratelimit-policy': '"minute";q=100;w=60',
  ratelimit: '"minute";r=99;t=60',
};
const GENERATED_AT = '2026-06-15T06:00:00.000Z';
const big = randomBytes(2 * BULK_CHUNK_BYTES + 12_345);
const small = randomBytes(1_000);

function entry(file: string, bytes: Buffer): BulkFile {
  const [dataset, span] = file.split('.') as ['price', 'full' | 'recent'];
  return {
    file,
    dataset,
    span,
    format: file.endsWith('.parquet') ? 'parquet' : 'csv.gz',
    rows: 10,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    first_date: '2024-01-01',
    last_date: '2026-06-12',
    generated_at: GENERATED_AT,
    columns: ['commodity', 'date', 'value'],
    licence: ['Public domain (U.S. government work, 17 U.S.C. § 105)'],
    attribution: ['Source: U.S. Energy Information Administration (public domain)'],
    plans: bulkFilePlans(dataset, span),
  };
}

let client: MongoClient;
let db: Db;
let files: BulkFileStore;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  client = await new MongoClient(getTestInfra().mongoUrl, { serverSelectionTimeoutMS: 5_000 }).connect();
  db = client.db(uniqueName('query_bulk'));
  files = createBulkFileStore(db, { timeoutMs: 5_000 });
  app = buildApp({
    repository: createMongoRepository({ db, maxTimeMs: 2_000 }),
    cache: createResponseCache({ maxEntries: 100, maxBytes: 1_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'http://localhost:8080',
    checkResponses: true,
    bulk: files,
  });
});

afterAll(async () => {
  await app?.close();
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  // Bytes (and a 304) carry no request id in a body: checked against the document alone.
  if (String(res.headers['content-type']).startsWith('application/json')) validate(url, res);
  else validateAnswer('/bulk/{file}', { ...res, headers: { ...GATEWAY_HEADERS, ...res.headers } });
  return res;
}

describe('bulk routes', () => {
  it('lists nothing before the first run', async () => {
    const res = await get('/api/v1/bulk');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ data: [], meta: { generated_at: null } });
  });

  it('lists the manifest, sorted by file, with ETag and a 304 for a current copy', async () => {
    await files.publish(
      [
        { entry: entry('price.full.parquet', big), bytes: big },
        { entry: entry('price.recent.csv.gz', small), bytes: small },
      ],
      GENERATED_AT,
    );
    const res = await get('/api/v1/bulk');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.map((f: BulkFile) => f.file)).toEqual(['price.full.parquet', 'price.recent.csv.gz']);
    expect(body.meta).toMatchObject({ generated_at: GENERATED_AT, request_id: res.headers['x-request-id'] });
    const again = await get('/api/v1/bulk', { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect((await get('/api/v1/bulk?page=2')).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/v1/bulk', headers: { accept: 'text/csv' } })).statusCode).toBe(
      406,
    );
  });

  it('serves a file whole across its chunks, with its sha256 as strong ETag, type and file name', async () => {
    const res = await get('/api/v1/bulk/price.full.parquet');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(big)).toBe(true);
    expect(res.headers).toMatchObject({
      etag: `"${createHash('sha256').update(big).digest('hex')}"`,
      'content-type': 'application/vnd.apache.parquet',
      'content-length': String(big.length),
      'content-disposition': 'attachment; filename="price.full.parquet"',
      'accept-ranges': 'bytes',
      'last-modified': 'Mon, 15 Jun 2026 06:00:00 GMT',
    });
    const gz = await get('/api/v1/bulk/price.recent.csv.gz');
    expect(gz.headers['content-type']).toBe('application/gzip');
    expect(gz.rawPayload.equals(small)).toBe(true);
    const cond = await get('/api/v1/bulk/price.full.parquet', { 'if-none-match': String(res.headers.etag) });
    expect(cond.statusCode).toBe(304);
    expect(cond.rawPayload.length).toBe(0);
  });

  it('serves one byte range (206), across a chunk boundary, and a suffix', async () => {
    const from = BULK_CHUNK_BYTES - 10;
    const res = await get('/api/v1/bulk/price.full.parquet', { range: `bytes=${from}-${from + 99}` });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${from}-${from + 99}/${big.length}`);
    expect(res.headers['content-length']).toBe('100');
    expect(res.rawPayload.equals(big.subarray(from, from + 100))).toBe(true);
    const tail = await get('/api/v1/bulk/price.full.parquet', { range: 'bytes=-5' });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(big.subarray(big.length - 5))).toBe(true);
  });

  it('sends the whole file when If-Range names another copy; 416 past the end', async () => {
    const stale = await get('/api/v1/bulk/price.recent.csv.gz', { range: 'bytes=0-9', 'if-range': '"0000"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(small)).toBe(true);
    const res = await get('/api/v1/bulk/price.recent.csv.gz', { range: `bytes=${small.length}-` });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${small.length}`);
    expect(res.json().error).toMatchObject({ code: 'range_not_satisfiable' });
  });

  it('answers 404 for a name that is no bulk file, or a file the manifest does not list', async () => {
    for (const name of ['nothing.txt', 'stocks.full.parquet']) {
      const res = await get(`/api/v1/bulk/${name}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'not_found', param: 'file' });
    }
  });
});
