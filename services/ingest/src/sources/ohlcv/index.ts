import { MiB } from '../common/bounds.ts';
import { SourceUsageError } from '../common/errors.ts';
import type { Source } from '../types.ts';
import { parseOhlcvCsv } from './parse.ts';

/** Daily OHLCV bars from a CSV file the user has (a broker export): no live source. */
export const ohlcv = {
  name: 'ohlcv',
  credentials: [],
  inputs: [
    {
      name: 'ohlcv',
      // An OHLCV daily history is a few MB.
      file: {
        maxBytes: 256 * MiB,
        requires: [{ flag: 'commodity' }],
        flags: { commodity: 'the catalog id the file belongs to (required for ohlcv)' },
        open: (chunks, opts) => {
          if (opts.commodity === undefined) throw new SourceUsageError('--commodity is required for --source ohlcv');
          return parseOhlcvCsv(chunks, {
            file: opts.file,
            stats: opts.stats,
            catalog: opts.catalog,
            commodity: opts.commodity,
          });
        },
      },
      live: { none: 'ohlcv has no live source: use backfill --source ohlcv --file <path> --commodity <id>' },
    },
  ],
} satisfies Source;
