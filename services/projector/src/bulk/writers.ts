import { csvChunks, type BulkFormat } from '@cds/contracts';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { gzipSync } from 'node:zlib';
import type { BulkColumn, BulkRow } from './rows.ts';

/**
 * The gzipped CSV of rows: the API's CSV rules (RFC 4180, CRLF, numbers as JSON prints them, an
 * absent value as an empty field; libs/contracts csv.ts), a header row first.
 */
export function writeCsvGz(columns: readonly BulkColumn[], rows: readonly BulkRow[]): Uint8Array {
  const csvColumns = columns.map((c) => ({ name: c.name, path: [c.name] }));
  const text = [...csvChunks(csvColumns, rows, { rowsPerChunk: 4096 })].join('');
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
}

/**
 * The Parquet file of rows (hyparquet-writer, pure JS): strings as UTF-8 byte arrays, numbers as
 * doubles (positions and volumes are whole numbers, exactly representable), absent values as nulls.
 */
export function writeParquet(columns: readonly BulkColumn[], rows: readonly BulkRow[]): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: columns.map((c) => ({
      name: c.name,
      type: c.type === 'string' ? 'STRING' : 'DOUBLE',
      data: rows.map((r) => r[c.name] ?? null),
    })),
  });
  return new Uint8Array(buffer);
}

export function writeBulkFile(
  format: BulkFormat,
  columns: readonly BulkColumn[],
  rows: readonly BulkRow[],
): Uint8Array {
  return format === 'csv.gz' ? writeCsvGz(columns, rows) : writeParquet(columns, rows);
}
