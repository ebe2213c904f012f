// Valid examples shared by the contract tests; each test breaks one rule at a time.
export const legacyReport = () => ({
  report_date: '2024-03-26',
  commodity: 'CRUDE_OIL_WTI',
  exchange: 'NYMEX',
  format: 'legacy' as const,
  open_interest: 1_650_000,
  commercial: { long: 700_000, short: 900_000, net: -200_000 },
  non_commercial: { long: 350_000, short: 120_000, spreading: 500_000, net: 230_000 },
  non_reportable: { long: 100_000, short: 130_000, net: -30_000 },
});

export const disaggregatedReport = () => ({
  report_date: '2024-03-26',
  commodity: 'CORN',
  format: 'disaggregated' as const,
  open_interest: 1_500_000,
  producer_merchant: { long: 300_000, short: 700_000, net: -400_000 },
  swap_dealer: { long: 200_000, short: 50_000, spreading: 10_000, net: 150_000 },
  managed_money: { long: 250_000, short: 300_000, spreading: 90_000, net: -50_000 },
  other_reportable: { long: 100_000, short: 60_000, spreading: 40_000, net: 40_000 },
});

/** A CIT supplement report: combined, commercial and non-commercial excluding the index traders. */
export const citReport = () => ({
  report_date: '2024-03-26',
  commodity: 'CORN',
  format: 'cit' as const,
  scope: 'futures_and_options' as const,
  open_interest: 1_900_000,
  commercial: { long: 600_000, short: 1_000_000, net: -400_000 },
  non_commercial: { long: 400_000, short: 300_000, spreading: 200_000, net: 100_000 },
  index_traders: { long: 450_000, short: 50_000, net: 400_000 },
  non_reportable: { long: 150_000, short: 250_000, net: -100_000 },
});

export const detail = () => ({
  id: 'GOLD',
  name: 'Gold',
  symbol: 'GC',
  category: 'metals' as const,
  exchange: 'COMEX',
  unit: 'USD/troy oz',
  description: 'COMEX gold futures.',
  contract_size: '100 troy ounces',
  tick_size: 0.1,
  available_series: [
    { type: 'price' as const, frequency: 'daily' as const, first_date: '2020-01-02', last_date: '2024-03-28' },
    { type: 'cot_legacy' as const, frequency: 'weekly' as const, first_date: '2020-01-07', last_date: '2024-03-26' },
  ],
});

export const envelope = <T extends string, D>(type: T, data: D) => ({
  id: `${type}:abc123`,
  type,
  version: 1 as const,
  occurred_at: '2024-03-28T12:00:00.000Z',
  source: 'test',
  data,
});
