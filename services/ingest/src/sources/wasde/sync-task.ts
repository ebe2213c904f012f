import { Readable } from 'node:stream';
import { addDays } from '@cds/schedule';
import type { CommodityDefinition } from '../../catalog/index.ts';
import { rejected } from '../common/records.ts';
import { countSkip } from '../common/stats.ts';
import type { SeriesTask, TaskContext } from '../common/sync/task.ts';
import type { SourceItem, SyncPart } from '../types.ts';
import { WasdeFileError } from './cells.ts';
import { ESMIS_BASE_URL, FIRST_XML_DAY, type WasdeXmlRelease } from './esmis.ts';
import { listingPageUrl, listWasdeEditions } from './fetch.ts';
import { readWasdeXml, WASDE_MAX_BYTES } from './parse.ts';

/**
 * `ingest sync --source wasde`: ESMIS's listing of WASDE releases (esmis.ts, fetch.ts), each
 * release's XML edition since the cursor fetched with the project's HTTP client and read by the
 * parser (parse.ts), every balance sheet one `supply_demand` item. One task for the source: its
 * cursor (`wasde/editions`) dates an edition by the first day of its month and keeps the digest
 * of every sheet of the editions it holds, so a run asks the listing again from a month before
 * the newest edition (a corrected re-post of it is a revision) and publishes only what is new.
 */

/** A month back from the newest edition: its re-post, and the edition before, are asked again. */
export const WASDE_OVERLAP_DAYS = 31;
/** The task's cursor name within the source. */
export const WASDE_CURSOR = 'editions';

/**
 * The items of one listed edition: its XML fetched (bounded) and read; the sheets of the file's
 * own edition published when the listing says (a re-post: esmis.ts publicationOf), the earlier
 * edition's column at that edition's release (the parser's). A file the parser refuses (a layout
 * it does not know) is one rejected item naming it, the other editions going on; a fetch that
 * fails fails the run (the next one retries).
 */
async function editionItems(release: WasdeXmlRelease, ctx: TaskContext): Promise<SourceItem[]> {
  const bytes = await ctx.client.getBytes(release.url, { maxBytes: WASDE_MAX_BYTES });
  let read: AsyncIterable<SourceItem>;
  try {
    read = await readWasdeXml(Readable.from([bytes]), { file: release.file, stats: ctx.stats, catalog: ctx.catalog });
  } catch (err) {
    // the file is what USDA posted and will stay so: reported and passed over, not asked again and again
    if (err instanceof WasdeFileError) return [rejected(`wasde:${release.file}`, 0, err.message, ctx.stats)];
    throw err;
  }
  const items: SourceItem[] = [];
  for await (const item of read) {
    if (item.kind === 'supply_demand' && item.edition === release.edition) {
      const { published_at_estimated: _estimated, ...batch } = item;
      items.push({
        ...batch,
        published_at: release.published.at,
        ...(release.published.estimated ? { published_at_estimated: true } : {}),
      });
    } else items.push(item);
  }
  return items;
}

/** The sync's one task: every edition listed from `from` on, its sheets of the asked commodities. */
export function wasdeTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  if (defs.length === 0) return [];
  const asked = new Set(defs.map((d) => d.entry.id));
  return [
    {
      source: 'wasde',
      series: WASDE_CURSOR,
      commodityId: defs.length === 1 ? defs[0]!.entry.id : 'all',
      overlapDays: WASDE_OVERLAP_DAYS,
      from: (newest, _today, since) =>
        since ?? (newest !== undefined ? addDays(newest, -WASDE_OVERLAP_DAYS) : FIRST_XML_DAY),
      async fetch(from, ctx) {
        const base = new URL(ctx.baseUrl ?? ESMIS_BASE_URL);
        const listing = await listWasdeEditions(ctx.client, base, from, ctx.now ?? new Date());
        for (const s of listing.skipped)
          countSkip(
            ctx.stats,
            s.reason === 'no_xml'
              ? 'release without an XML edition (text or pdf only)'
              : 'release whose XML file is not named wasdeMMYY.xml',
          );
        const items: SourceItem[] = [];
        for (const release of listing.editions) {
          for (const item of await editionItems(release, ctx))
            if (item.kind !== 'supply_demand' || asked.has(item.commodity_id)) items.push(item);
        }
        return items;
      },
    },
  ];
}

/** The sync part: the task, its CronJob, and ESMIS's address setting. */
export const wasdeSync: SyncPart = {
  tasks: wasdeTasks,
  jobs: [
    {
      name: 'sync-wasde',
      schedule: '5 12 8-15 * *',
      purpose: 'WASDE (monthly, 12:00 on a date of USDA calendar: the 8th-14th; to the 15th catches a late posting)',
    },
  ],
  baseUrlSetting: 'WASDE_API_URL',
  // a live snapshot build takes every XML edition, not the COT window
  liveSince: FIRST_XML_DAY,
  probe: (env) => listingPageUrl(new URL(env.WASDE_API_URL ?? ESMIS_BASE_URL), 0),
};
