import { statedDayStamp } from '../common/published.ts';
import { monthNumber } from '../common/values.ts';
import type { PublicationStamp } from '../types.ts';

/** `World Bank Pink Sheet, updated June 02, 2026, ...` (an origin's `from`) → 2026-06-02. */
function statedVintage(from: string | undefined): string | undefined {
  const m = /\bupdated(?: on)?\s+([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})/i.exec(from ?? '');
  const month = m ? monthNumber(m[1]!) : undefined;
  if (!m || month === undefined) return undefined;
  return `${m[3]}-${String(month).padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
}

/**
 * A snapshot's Pink Sheet points were published on the "updated" date their origin names: stated
 * when the snapshot read one vintage; the newest, estimated, when a later file's values replaced an
 * earlier one's; none (the build time) when an origin names no date or the date is after the build.
 */
export function worldbankSnapshotStamps(
  origins: readonly { from?: string | undefined }[],
  builtAt: string,
): () => PublicationStamp | undefined {
  const vintages = origins.map((o) => statedVintage(o.from));
  const newest = vintages.every((v) => v !== undefined) ? vintages.sort().at(-1) : undefined;
  const stamp: PublicationStamp | undefined =
    newest === undefined ? undefined : { ...statedDayStamp(newest), estimated: vintages.length > 1 };
  return () => (stamp !== undefined && stamp.at <= builtAt ? stamp : undefined);
}
