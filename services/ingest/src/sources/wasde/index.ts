import { InputBoundError } from '../common/bounds.ts';
import { SourceOpenError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { WasdeFileError } from './cells.ts';
import { readWasdeXml, WASDE_MAX_BYTES } from './parse.ts';
import { wasdeSync } from './sync-task.ts';

// Its parser, for the specs that read a WASDE file (`@cds/ingest/sources/wasde`).
export { readWasdeXml } from './parse.ts';

/**
 * USDA's World Agricultural Supply and Demand Estimates: one XML file per monthly edition, its
 * balance sheets published as supply and demand figures (docs/sources.md).
 */
export const wasde = {
  name: 'wasde',
  credentials: [],
  inputs: [
    {
      name: 'wasde',
      file: {
        maxBytes: WASDE_MAX_BYTES,
        published: 'wasdeMMYY.xml (one edition; wasdeMMYYv2.xml a corrected re-post)',
        takes: ['publishedAt'],
        flags: {
          publishedAt:
            'when the file was published (RFC 3339), when the edition is not in the release calendar or was re-posted',
        },
        // The file is read and its layout checked here, so a changed layout stops before anything is published.
        async open(chunks, opts) {
          try {
            return await readWasdeXml(chunks, {
              file: opts.file,
              stats: opts.stats,
              catalog: opts.catalog,
              ...(opts.publishedAt !== undefined ? { publishedAt: opts.publishedAt } : {}),
            });
          } catch (err) {
            if (err instanceof WasdeFileError || err instanceof InputBoundError) throw new SourceOpenError(err.message);
            throw err;
          }
        },
      },
      live: { none: 'wasde: use sync --source wasde (it finds the monthly file), or backfill --file' },
    },
  ],
  sync: wasdeSync,
} satisfies Source;
