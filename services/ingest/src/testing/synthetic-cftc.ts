import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { COMMODITIES } from '../sources/registry.ts';

/** The header of the CFTC legacy futures-only annual file (annual.txt / deacot<year>), all 129 columns. */
export const CFTC_LEGACY_HEADER =
  '"Market and Exchange Names","As of Date in Form YYMMDD","As of Date in Form YYYY-MM-DD","CFTC Contract Market Code","CFTC Market Code in Initials","CFTC Region Code","CFTC Commodity Code","Open Interest (All)","Noncommercial Positions-Long (All)","Noncommercial Positions-Short (All)","Noncommercial Positions-Spreading (All)","Commercial Positions-Long (All)","Commercial Positions-Short (All)"," Total Reportable Positions-Long (All)","Total Reportable Positions-Short (All)","Nonreportable Positions-Long (All)","Nonreportable Positions-Short (All)","Open Interest (Old)","Noncommercial Positions-Long (Old)","Noncommercial Positions-Short (Old)","Noncommercial Positions-Spreading (Old)","Commercial Positions-Long (Old)","Commercial Positions-Short (Old)","Total Reportable Positions-Long (Old)","Total Reportable Positions-Short (Old)","Nonreportable Positions-Long (Old)","Nonreportable Positions-Short (Old)","Open Interest (Other)","Noncommercial Positions-Long (Other)","Noncommercial Positions-Short (Other)","Noncommercial Positions-Spreading (Other)","Commercial Positions-Long (Other)","Commercial Positions-Short (Other)","Total Reportable Positions-Long (Other)","Total Reportable Positions-Short (Other)","Nonreportable Positions-Long (Other)","Nonreportable Positions-Short (Other)","Change in Open Interest (All)","Change in Noncommercial-Long (All)","Change in Noncommercial-Short (All)","Change in Noncommercial-Spreading (All)","Change in Commercial-Long (All)","Change in Commercial-Short (All)","Change in Total Reportable-Long (All)","Change in Total Reportable-Short (All)","Change in Nonreportable-Long (All)","Change in Nonreportable-Short (All)","% of Open Interest (OI) (All)","% of OI-Noncommercial-Long (All)","% of OI-Noncommercial-Short (All)","% of OI-Noncommercial-Spreading (All)","% of OI-Commercial-Long (All)","% of OI-Commercial-Short (All)","% of OI-Total Reportable-Long (All)","% of OI-Total Reportable-Short (All)","% of OI-Nonreportable-Long (All)","% of OI-Nonreportable-Short (All)","% of Open Interest (OI)(Old)","% of OI-Noncommercial-Long (Old)","% of OI-Noncommercial-Short (Old)","% of OI-Noncommercial-Spreading (Old)","% of OI-Commercial-Long (Old)","% of OI-Commercial-Short (Old)","% of OI-Total Reportable-Long (Old)","% of OI-Total Reportable-Short (Old)","% of OI-Nonreportable-Long (Old)","% of OI-Nonreportable-Short (Old)","% of Open Interest (OI) (Other)","% of OI-Noncommercial-Long (Other)","% of OI-Noncommercial-Short (Other)","% of OI-Noncommercial-Spreading (Other)","% of OI-Commercial-Long (Other)","% of OI-Commercial-Short (Other)","% of OI-Total Reportable-Long (Other)","% of OI-Total Reportable-Short (Other)","% of OI-Nonreportable-Long (Other)","% of OI-Nonreportable-Short (Other)","Traders-Total (All)","Traders-Noncommercial-Long (All)","Traders-Noncommercial-Short (All)","Traders-Noncommercial-Spreading (All)","Traders-Commercial-Long (All)","Traders-Commercial-Short (All)","Traders-Total Reportable-Long (All)","Traders-Total Reportable-Short (All)","Traders-Total (Old)","Traders-Noncommercial-Long (Old)","Traders-Noncommercial-Short (Old)","Traders-Noncommercial-Spreading (Old)","Traders-Commercial-Long (Old)","Traders-Commercial-Short (Old)","Traders-Total Reportable-Long (Old)","Traders-Total Reportable-Short (Old)","Traders-Total (Other)","Traders-Noncommercial-Long (Other)","Traders-Noncommercial-Short (Other)","Traders-Noncommercial-Spreading (Other)","Traders-Commercial-Long (Other)","Traders-Commercial-Short (Other)","Traders-Total Reportable-Long (Other)","Traders-Total Reportable-Short (Other)","Concentration-Gross LT = 4 TDR-Long (All)","Concentration-Gross LT =4 TDR-Short (All)","Concentration-Gross LT =8 TDR-Long (All)","Concentration-Gross LT =8 TDR-Short (All)","Concentration-Net LT =4 TDR-Long (All)","Concentration-Net LT =4 TDR-Short (All)","Concentration-Net LT =8 TDR-Long (All)","Concentration-Net LT =8 TDR-Short (All)","Concentration-Gross LT =4 TDR-Long (Old)","Concentration-Gross LT =4 TDR-Short (Old)","Concentration-Gross LT =8 TDR-Long (Old)","Concentration-Gross LT =8 TDR-Short (Old)","Concentration-Net LT =4 TDR-Long (Old)","Concentration-Net LT =4 TDR-Short (Old)","Concentration-Net LT =8 TDR-Long (Old)","Concentration-Net LT =8 TDR-Short (Old)","Concentration-Gross LT =4 TDR-Long (Other)","Concentration-Gross LT =4 TDR-Short(Other)","Concentration-Gross LT =8 TDR-Long (Other)","Concentration-Gross LT =8 TDR-Short(Other)","Concentration-Net LT =4 TDR-Long (Other)","Concentration-Net LT =4 TDR-Short (Other)","Concentration-Net LT =8 TDR-Long (Other)","Concentration-Net LT =8 TDR-Short (Other)","Contract Units","CFTC Contract Market Code (Quotes)","CFTC Market Code in Initials (Quotes)","CFTC Commodity Code (Quotes)"';

// Columns 18-129 (old/other crops, changes, percentages, trader counts, concentration) of a real
// row: the parser reads none of them, but they make each synthetic row as long as a real one.
const REAL_ROW_TAIL =
  '  321172,  158195,  175130,   58386,   77086,   65943,  293667,  299459,   27505,   21713,  154008,   41286,   91706,   22293,   82074,   29536,  145653,  143535,    8355,   10473,  -19220,   -2996,  -26752,    2076,  -16594,    6014,  -17514,  -18662,   -1706,    -558,  100.0,   27.5,   41.7,   31.4,   33.5,   20.1,   92.5,   93.2,    7.5,    6.8,  100.0,   49.3,   54.5,   18.2,   24.0,   20.5,   91.4,   93.2,    8.6,    6.8,  100.0,   26.8,   59.5,   14.5,   53.3,   19.2,   94.6,   93.2,    5.4,    6.8,    384,    138,    101,    125,    104,    101,    306,    273,    372,    144,     94,     78,     96,     83,    274,    222,    227,     58,     70,     45,     54,     74,    140,    165,    11.0,    13.4,    18.6,    23.3,     8.6,    10.1,    14.3,    18.1,    12.8,    16.0,    21.0,    28.3,    12.5,    13.5,    19.8,    25.1,    20.8,    21.9,    35.6,    36.0,    20.8,    21.9,    35.5,    35.8,"(CONTRACTS OF 5,000 BUSHELS)","001602","CBT ","001 "';

/** The tail from column 38 on (its Old and Other columns are the row's own). */
const TAIL_AFTER_CROP_YEARS = REAL_ROW_TAIL.split(',').slice(20).join(',');

const pad = (n: number, width = 9) => String(n).padStart(width, ' ');

/** CFTC contract market codes of the curated catalog (the markets a legacy file row can map to). */
export function catalogCftcCodes(): { code: string; name: string }[] {
  return COMMODITIES.flatMap((c) =>
    (c.entry.identifiers?.cftc_contract_codes ?? []).map((code) => ({ code, name: c.entry.name.toUpperCase() })),
  );
}

/**
 * One synthetic row in the real legacy layout: market `m` (index into the catalog's codes) on the
 * report date `date` (YYYY-MM-DD), with positions that add up to the open interest.
 */
export function cftcLegacyRow(market: { code: string; name: string }, date: string, seed: number): string {
  const nonLong = 50_000 + (seed % 40_000);
  const nonShort = 40_000 + ((seed * 7) % 30_000);
  const spread = 10_000 + ((seed * 13) % 9_000);
  const comLong = 100_000 + ((seed * 3) % 50_000);
  const nrLong = 20_000 + ((seed * 5) % 5_000);
  const nrShort = 15_000 + ((seed * 11) % 5_000);
  const oi = nonLong + spread + comLong + nrLong;
  const comShort = oi - nonShort - spread - nrShort;
  const yymmdd = date.slice(2).replace(/-/g, '');
  const all = [
    oi,
    nonLong,
    nonShort,
    spread,
    comLong,
    comShort,
    nonLong + spread + comLong,
    nonShort + spread + comShort,
    nrLong,
    nrShort,
  ];
  return [
    `"${market.name} - SYNTHETIC EXCHANGE"`,
    yymmdd,
    date,
    market.code,
    'SYN ',
    '00',
    '001 ',
    ...all.map((n) => pad(n)),
    // Old = All, Other = 0: the row check old_plus_other_equals_all holds
    ...all.map((n) => pad(n)),
    ...all.map(() => pad(0)),
    TAIL_AFTER_CROP_YEARS,
  ].join(',');
}

/**
 * Writes a legacy COT file of `rows` rows (streamed to disk): weekly Tuesdays going back from
 * `lastDate`, every catalog market each week, markets interleaved as in the CFTC's files. With
 * `badEvery`, every n-th row gets a non-numeric open interest (a row the parser must reject).
 */
export async function writeSyntheticCftcLegacyFile(
  path: string,
  opts: { rows: number; lastDate?: string; badEvery?: number },
): Promise<{ rows: number; bad: number; markets: number }> {
  const markets = catalogCftcCodes();
  if (markets.length === 0) throw new Error('the catalog has no CFTC codes');
  const out = createWriteStream(path);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`${CFTC_LEGACY_HEADER}\n`);
  let day = Date.parse(`${opts.lastDate ?? '2025-06-24'}T00:00:00Z`);
  let bad = 0;
  for (let i = 0; i < opts.rows;) {
    const date = new Date(day).toISOString().slice(0, 10);
    for (const m of markets) {
      if (i >= opts.rows) break;
      i++;
      let row = cftcLegacyRow(m, date, i);
      if (opts.badEvery !== undefined && i % opts.badEvery === 0) {
        const cells = row.split(',');
        cells[7] = '  n/a';
        row = cells.join(',');
        bad++;
      }
      await write(`${row}\n`);
    }
    day -= 7 * 86_400_000;
  }
  out.end();
  await once(out, 'finish');
  return { rows: opts.rows, bad, markets: markets.length };
}
