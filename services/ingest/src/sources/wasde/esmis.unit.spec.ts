import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import {
  esmisReleaseInstant,
  EsmisListingError,
  publicationOf,
  readEsmisPage,
  repostDayOf,
  xmlReleasesOf,
  type EsmisRelease,
} from './esmis.ts';
import { listingPageUrl } from './fetch.ts';

// The recorded ESMIS answer (fixtures/sync/wasde_esmis_listing_2026-06.json, real, see SOURCES.md there).
const LISTING = readFileSync(ownFixturePath('sync/wasde_esmis_listing_2026-06.json'), 'utf8');
const ESMIS = new URL('https://esmis.nal.usda.gov');
const NOW = new Date('2026-06-20T10:00:00Z');

describe('the ESMIS listing of WASDE releases', () => {
  const page = readEsmisPage(LISTING, 'page 0');

  it('reads the real page: pager, ids, files, notes; the "+0000" wall time read as New York', () => {
    expect(page.totalPages).toBe(1);
    expect(page.releases.map((r) => [r.id, r.releasedAt.toISOString()])).toEqual([
      ['795937', '2026-06-11T16:00:00.000Z'],
      ['795903', '2026-05-12T16:00:00.000Z'],
      ['95857', '1995-06-12T16:00:00.000Z'],
      ['96138', '1975-06-11T16:00:00.000Z'],
    ]);
    expect(page.releases[1]!.description).toMatch(/reposted to correct an error in the Wheat by-Class table/);
  });

  it('reads noon in winter as 17:00Z and refuses a date that is none', () => {
    expect(esmisReleaseInstant('2026-01-12T12:00:00+0000')?.toISOString()).toBe('2026-01-12T17:00:00.000Z');
    expect(esmisReleaseInstant('2026-03-10T12:00:00Z')?.toISOString()).toBe('2026-03-10T16:00:00.000Z');
    expect(esmisReleaseInstant('2026-02-30T12:00:00+0000')).toBeUndefined();
    expect(esmisReleaseInstant('2026-06-11')).toBeUndefined();
    expect(esmisReleaseInstant('noon')).toBeUndefined();
  });

  it('refuses an answer that is not the documented shape, naming what is wrong', () => {
    expect(() => readEsmisPage('<html>', 'page 3')).toThrow(
      new EsmisListingError('wasde: ESMIS answered page 3 with something that is not JSON'),
    );
    expect(() => readEsmisPage('{"results":[]}', 'page 0')).toThrow(/documented shape: pager: /);
    expect(() => readEsmisPage('{"pager":{"total_pages":1},"results":[{"id":"1","files":[]}]}', 'page 0')).toThrow(
      /results\.0\.release_datetime/,
    );
    const undated = '{"pager":{"total_pages":1},"results":[{"id":"7","files":[],"release_datetime":"soon"}]}';
    expect(() => readEsmisPage(undated, 'page 0')).toThrow('wasde: ESMIS release 7 page 0 has no date: "soon"');
  });

  it('picks each release XML edition; old text and pdf editions have none', () => {
    const [[june], [mayV2], txt, pdf] = page.releases.map((r) => xmlReleasesOf(r, ESMIS, NOW)) as [
      unknown[],
      unknown[],
      unknown,
      unknown,
    ];
    expect(june).toMatchObject({
      esmisId: '795937',
      file: 'wasde0626.xml',
      edition: '2026-06',
      repost: false,
      day: '2026-06-11',
      published: { at: '2026-06-11T16:00:00.000Z', estimated: false },
    });
    expect(String((june as { url: URL }).url)).toBe(
      'https://esmis.nal.usda.gov/sites/default/release-files/795937/wasde0626.xml',
    );
    // the May re-post: its note gives May 13, 2026: noon New York that day, estimated
    expect(mayV2).toMatchObject({
      file: 'wasde0526v2.xml',
      edition: '2026-05',
      repost: true,
      published: { at: '2026-05-13T16:00:00.000Z', estimated: true },
    });
    expect(txt).toEqual({ release: '95857', reason: 'no_xml' });
    expect(pdf).toEqual({ release: '96138', reason: 'no_xml' });
  });

  it('fetches a file at its path on the listing origin; a file of another host or name is skipped', () => {
    const release = (files: string[]): EsmisRelease => ({
      id: '9',
      releasedAt: new Date('2019-11-08T17:00:00Z'),
      files,
      description: '',
    });
    const local = new URL('http://127.0.0.1:4000');
    const [picked] = xmlReleasesOf(release(['https://esmis.nal.usda.gov/x/wasde1119.xml']), local, NOW) as {
      url: URL;
    }[];
    expect(String(picked!.url)).toBe('http://127.0.0.1:4000/x/wasde1119.xml');
    // ESMIS's stale "latest.*" aliases of 2019-11-08
    expect(xmlReleasesOf(release(['https://esmis.nal.usda.gov/x/latest.xml']), ESMIS, NOW)).toEqual({
      release: '9',
      reason: 'unknown_file',
    });
    expect(xmlReleasesOf(release(['https://mirror.example/x/wasde1119.xml']), ESMIS, NOW)).toMatchObject({
      reason: 'unknown_file',
    });
    // a release listing the original and its re-post: both, the original first
    const both = xmlReleasesOf(
      release(['https://esmis.nal.usda.gov/a/wasde1119v2.xml', 'https://esmis.nal.usda.gov/a/wasde1119.xml']),
      ESMIS,
      NOW,
    );
    expect(both).toMatchObject([
      { file: 'wasde1119.xml', repost: false, published: { at: '2019-11-08T17:00:00.000Z', estimated: false } },
      // first seen long after the release: the release + 1 day, estimated
      { file: 'wasde1119v2.xml', repost: true, published: { at: '2019-11-09T17:00:00.000Z', estimated: true } },
    ]);
  });
});

describe('when a re-post was published', () => {
  const listed = (iso: string, description = ''): EsmisRelease => ({
    id: '1',
    releasedAt: new Date(iso),
    files: [],
    description,
  });

  it("reads the note's day, in the words USDA writes it", () => {
    expect(repostDayOf('<p>NOTE: On May 13, 2026, the May WASDE report was reposted to correct</p>')).toBe(
      '2026-05-13',
    );
    expect(repostDayOf('On Sept. 14, 2023, the report was re-posted')).toBe('2023-09-14');
    expect(repostDayOf('On May 13, 2026, the report was released')).toBeUndefined();
    expect(repostDayOf('On Foo 13, 2026, reposted')).toBeUndefined();
    expect(repostDayOf('On February 30, 2026, reposted')).toBeUndefined();
  });

  it('takes a listed time after the edition month as the re-post time, else the time first seen (or the release + 1 day when catching up)', () => {
    expect(publicationOf(listed('2026-06-02T16:00:00Z'), '2026-05', true, NOW)).toEqual({
      at: '2026-06-02T16:00:00.000Z',
      estimated: false,
    });
    const soon = new Date('2026-05-20T09:00:00Z');
    expect(publicationOf(listed('2026-05-12T16:00:00Z'), '2026-05', true, soon)).toEqual({
      at: soon.toISOString(),
      estimated: true,
    });
    // first seen over a month after the release (a first sync catching up): the release + 1 day
    expect(publicationOf(listed('2024-12-10T17:00:00Z'), '2024-12', true, NOW)).toEqual({
      at: '2024-12-11T17:00:00.000Z',
      estimated: true,
    });
    expect(publicationOf(listed('2026-05-12T16:00:00Z'), '2026-05', false, NOW)).toEqual({
      at: '2026-05-12T16:00:00.000Z',
      estimated: false,
    });
  });

  it('asks the listing by page', () => {
    expect(String(listingPageUrl(ESMIS, 2))).toBe(
      'https://esmis.nal.usda.gov/api/v1/release/findByIdentifier/wasde?page=2',
    );
  });
});
