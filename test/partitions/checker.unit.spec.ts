// The partition checker and timeline over made-up histories: a clean run passes every check, and
// each kind of damage fails the check that is about it (and only that one).
import { describe, expect, it } from 'vitest';
import { check } from './checker.ts';
import { timeline, type History, type RequestRecord } from './history.ts';
import { timelineSvg } from './svg.ts';

const MINUTE = 29_000_000;

function clean(): History {
  const requests: RequestRecord[] = Array.from({ length: 60 }, (_, i) => ({
    at: i * 500,
    ms: 5,
    status: 200,
    gateway: i % 2,
    kind: 'load',
    minute: MINUTE,
  }));
  for (let i = 0; i < 12; i += 1) {
    requests.push({
      at: i * 1_000,
      ms: 5,
      status: i < 10 ? 200 : 429,
      gateway: i % 2,
      kind: 'limited',
      minute: MINUTE,
    });
  }
  return {
    scenario: 'made-up',
    title: 'A made-up partition',
    cut: 'n1 cut from n2',
    startedEpoch: MINUTE * 60_000,
    gateways: ['gw1', 'gw2'],
    cutOffGateways: [1],
    bounds: { revocationAfterHealMs: 15_000, revocationMs: 10_000, settleMs: 15_000, rateFactor: 3 },
    partition: { from: 5_000, to: 20_000 },
    requests: requests.sort((a, b) => a.at - b.at),
    lag: Array.from({ length: 30 }, (_, i) => ({ at: i * 1_000, pending: i > 5 && i < 22 ? 40 : 0 })),
    revocation: {
      answeredAt: 8_000,
      probes: [
        { at: 7_900, gateway: 0, status: 304 },
        { at: 7_900, gateway: 1, status: 304 },
        { at: 8_100, gateway: 0, status: 401 },
        { at: 8_100, gateway: 1, status: 304 },
        { at: 21_000, gateway: 1, status: 401 },
        { at: 22_000, gateway: 0, status: 401 },
      ],
    },
    limited: { perMinute: 10 },
    ingest: { runs: [{ code: 0, published: 300, duplicates: 4 }], added: 302, distinct: 302 },
    readModels: { live: 'abc', reference: 'abc', points: 10, reports: 2, differences: [] },
    notes: [],
  };
}

const failed = (h: History) =>
  check(h)
    .filter((v) => !v.ok)
    .map((v) => v.check);

describe('the partition checker', () => {
  it('passes a clean history', () => {
    expect(failed(clean())).toEqual([]);
  });

  it('fails a lost or doubled event, a failed ingest run, a read model unlike the rebuild', () => {
    expect(
      failed({ ...clean(), ingest: { runs: [{ code: 0, published: 300, duplicates: 0 }], added: 299, distinct: 299 } }),
    ).toEqual(['every acknowledged event stored, none twice']);
    expect(failed({ ...clean(), ingest: { ...clean().ingest, distinct: 301 } })).toEqual([
      'every acknowledged event stored, none twice',
    ]);
    // A run that gave up, with no rerun: failed; rerun after the heal (its events stored once): passes.
    const gaveUp = { code: 1, published: Number.NaN, duplicates: Number.NaN };
    expect(failed({ ...clean(), ingest: { ...clean().ingest, runs: [gaveUp] } })).toEqual([
      'every ingest run acknowledged all its events (the last one after a rerun)',
      'every acknowledged event stored, none twice',
    ]);
    const rerun = { code: 0, published: 280, duplicates: 24 };
    expect(failed({ ...clean(), ingest: { runs: [gaveUp, rerun], added: 302, distinct: 302 } })).toEqual([]);
    expect(failed({ ...clean(), readModels: { ...clean().readModels, reference: 'abd' } })).toEqual([
      'read models hash-identical to a clean rebuild of the stream',
    ]);
  });

  it('fails a revocation refused late, or a key known again after its refusal', () => {
    const h = clean();
    // gw1 (not cut off) first refuses 9.5 s after the answer: within 10 s; without that probe, 14 s: late.
    h.revocation.probes = h.revocation.probes.map((p) =>
      p.gateway === 0 && p.at === 8_100 ? { ...p, status: 304 } : p,
    );
    h.revocation.probes.push({ at: 17_500, gateway: 0, status: 401 });
    expect(failed(h)).toEqual([]);
    h.revocation.probes = h.revocation.probes.filter((p) => !(p.gateway === 0 && p.at === 17_500));
    expect(failed(h)).toEqual(['the revoked key refused by every gateway within the bound']);
    const again = clean();
    again.revocation.probes.push({ at: 23_000, gateway: 0, status: 304 });
    expect(failed(again)).toEqual(['no gateway knew the key again after refusing it']);
    expect(failed({ ...clean(), revocation: { answeredAt: null, probes: [] } })).toEqual([
      'the revocation was answered',
    ]);
  });

  it('fails admissions past the rate bound, in one minute', () => {
    const h = clean();
    for (let i = 0; i < 21; i += 1) {
      h.requests.push({ at: 12_000 + i, ms: 5, status: 200, gateway: 0, kind: 'limited', minute: MINUTE });
    }
    expect(failed(h)).toEqual(['rate windows admitted no more than the bound']);
    // The same admissions over two minutes stay within it.
    h.requests = h.requests.map((r, i) => (r.kind === 'limited' && i % 2 === 0 ? { ...r, minute: MINUTE + 1 } : r));
    expect(failed(h)).toEqual([]);
  });

  it('fails a 500 anywhere, and a 503 or unanswered request outside the partition and its settling', () => {
    const h = clean();
    h.requests.push({ at: 10_000, ms: 5, status: 503, gateway: 0, kind: 'load', minute: MINUTE });
    h.requests.push({ at: 34_000, ms: 10_000, status: 0, gateway: 0, kind: 'load', minute: MINUTE });
    expect(failed(h)).toEqual([]);
    h.requests.push({ at: 36_000, ms: 5, status: 503, gateway: 1, kind: 'load', minute: MINUTE });
    expect(failed(h)).toEqual(['503 and unanswered requests only while partitioned and settling']);
    const five = clean();
    five.requests.push({ at: 10_000, ms: 5, status: 500, gateway: 0, kind: 'load', minute: MINUTE });
    expect(failed(five)).toEqual(['no 5xx but 503']);
  });
});

describe('the timeline', () => {
  it('counts each second by kind and keeps the most lag seen in it', () => {
    const h = clean();
    h.requests.push({ at: 6_100, ms: 5, status: 503, gateway: 0, kind: 'load', minute: MINUTE });
    h.requests.push({ at: 6_200, ms: 5, status: 0, gateway: 0, kind: 'load', minute: MINUTE });
    h.lag.push({ at: 6_500, pending: 90 }, { at: 6_700, pending: null });
    const s = timeline(h)[6]!;
    expect(s).toEqual({ second: 6, admitted: 3, limited429: 0, unavailable: 1, errors: 1, lag: 90 });
    expect(timeline(h)[11]!.limited429).toBe(1);
  });

  it('draws an SVG with the partition band, the revocation and the lag line, and no NaN', () => {
    const svg = timelineSvg(clean());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('>partitioned</text>');
    expect(svg).toContain('>revoked</text>');
    expect(svg).toContain('<polyline');
    expect(svg).not.toContain('NaN');
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  });
});
