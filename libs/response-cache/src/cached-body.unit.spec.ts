import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serializeBody } from './cached-body.ts';

/** What a kept answer must hold: JSON.stringify's UTF-8 bytes up to the request id's value. */
function expectedPrefix(data: unknown, meta: Record<string, unknown>): Buffer {
  const text = JSON.stringify({ data, meta: { ...meta, request_id: '' } });
  return Buffer.from(text.slice(0, -3), 'utf8');
}

describe('serializeBody', () => {
  it('keeps the UTF-8 bytes of the answer before the request id, and hashes them with the closing bytes', () => {
    const data = [{ date: '2026-01-02', value: 61.5, unit: 'USD/bbl' }];
    const body = serializeBody({ data, meta: { commodity_id: 'CRUDE_OIL_WTI' } });
    const prefix = expectedPrefix(data, { commodity_id: 'CRUDE_OIL_WTI' });
    expect(body.prefix.equals(prefix)).toBe(true);
    expect(body.bytes).toBe(prefix.length + 3);
    const hash = createHash('sha256').update(prefix).update('"}}').digest('base64url');
    expect(body.hash).toBe(hash);
  });

  it('encodes text outside ASCII (two-, three- and four-byte characters) as Buffer.from does', () => {
    const data = [{ name: 'Café crème', unit: '€/t', note: 'Δ 5 °C', mark: '📈', cjk: '大豆' }];
    const body = serializeBody({ data, meta: { source: 'ECB: € reference rates' } });
    expect(body.prefix.equals(expectedPrefix(data, { source: 'ECB: € reference rates' }))).toBe(true);
  });

  it('keeps bytes of its own: a later answer does not change an earlier one', () => {
    const first = serializeBody({ data: ['a'.repeat(5_000)], meta: {} });
    const copy = Buffer.from(first.prefix);
    serializeBody({ data: ['b'.repeat(9_000)], meta: {} });
    expect(first.prefix.equals(copy)).toBe(true);
  });

  it('encodes an answer too long for its scratch space (over 349,525 characters) the plain way', () => {
    const data = Array.from({ length: 40_000 }, (_, i) => ({ d: `2026-01-${String(i % 28).padStart(2, '0')}`, v: i }));
    const body = serializeBody({ data, meta: { unit: 'm³' } });
    expect(body.prefix.length).toBeGreaterThan(1 << 20);
    expect(body.prefix.equals(expectedPrefix(data, { unit: 'm³' }))).toBe(true);
  });

  it("keeps a serializer's bytes in pieces as one buffer, with the hash it names them by", () => {
    const data = [{ date: '2026-01-02', value: 61.5 }];
    const text = JSON.stringify({ data, meta: { unit: 'm³', request_id: '' } });
    const bytes = Buffer.from(text);
    const pieces = [bytes.subarray(0, 5), bytes.subarray(5, 30), bytes.subarray(30)];
    const body = serializeBody({ data, meta: { unit: 'm³' } }, undefined, () => ({ pieces, hash: 'named' }));
    // written first as the serializer's pieces (views of its bytes, not copies), the last 3 bytes left out
    const first = body.pieces;
    expect(first).toHaveLength(3);
    expect(first.every((piece) => piece.buffer === bytes.buffer)).toBe(true);
    expect(Buffer.concat(first).equals(expectedPrefix(data, { unit: 'm³' }))).toBe(true);
    // then (a kept body's hits) as one buffer of its own, joined once
    const again = body.pieces;
    expect(again).toHaveLength(1);
    expect(first).not.toContain(again[0]);
    expect(body.pieces[0]).toBe(again[0]);
    expect(body.prefix).toBe(again[0]);
    expect(body.prefix.equals(expectedPrefix(data, { unit: 'm³' }))).toBe(true);
    // a last piece shorter than the 3 bytes left out
    const short = [bytes.subarray(0, bytes.length - 2), bytes.subarray(bytes.length - 2)];
    const cut = serializeBody({ data, meta: { unit: 'm³' } }, undefined, () => ({ pieces: short, hash: 'named' }));
    expect(cut.pieces).toHaveLength(1);
    expect(cut.pieces[0]!.buffer).toBe(bytes.buffer);
    expect(cut.prefix.equals(body.prefix)).toBe(true);
    expect(body.bytes).toBe(bytes.length);
    expect(body.hash).toBe('named');
    expect(body.etag).toBe(serializeBody({ data: [], meta: {} }, undefined, () => ({ pieces, hash: 'named' })).etag);
    expect(body.etag).not.toBe(serializeBody({ data, meta: { unit: 'm³' } }).etag);
  });
});
