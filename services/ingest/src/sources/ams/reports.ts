/**
 * The USDA AMS market reports the catalog maps (docs/sources.md "USDA AMS"): for each report, the
 * datamart section that holds the series, the row that is the series, and the fields that give
 * its date and value. Field names are those of the LMR datamart (`mpr.datamart.ams.usda.gov`,
 * `/services/v1.1/reports/<slug>`); see test/fixtures/README.md for the public code and recorded
 * responses each name comes from.
 */
export interface AmsReportSpec {
  report: string;
  title: string;
  /** `reportSection` of the datamart answer that holds the series. */
  section: string;
  /** The datamart query field: LMR reports filter on `report_date`, FMMO reports on `report_year`. */
  query: 'report_date' | 'report_year';
  /** A row is the series when each of these fields (any alias) equals the value, case-insensitively. */
  match: { field: readonly string[]; equals: string }[];
  /** The value, USD/cwt. */
  value: readonly string[];
  /** `MM/DD/YYYY` date field (LMR), or the FMMO year and month fields (dated at the month end). */
  date:
    | { kind: 'us_date'; field: readonly string[] }
    | { kind: 'year_month'; year: readonly string[]; month: readonly string[] };
  /**
   * The `MM/DD/YYYY` field that dates the report itself (LMR `report_date`) and the hour it is out
   * by, US Eastern: the row's publication (estimated: the datamart states no time). Absent: the
   * rows do not say (FMMO), and a sync takes AMS's calendar.
   */
  published?: { field: readonly string[]; time: string };
}

export const AMS_REPORTS: Readonly<Record<string, AmsReportSpec>> = {
  // 5 Area Weekly Weighted Average Direct Slaughter Cattle (negotiated purchases): live steers,
  // FOB the feedlot, all grades together.
  LM_CT150: {
    report: 'LM_CT150',
    title: '5 Area Weekly Weighted Average Direct Slaughter Cattle',
    section: 'Detail',
    query: 'report_date',
    match: [
      { field: ['class_description'], equals: 'STEER' },
      { field: ['selling_basis_description', 'selling_basis_desc'], equals: 'LIVE FOB' },
      { field: ['grade_description'], equals: 'Total all grades' },
    ],
    value: ['weighted_avg_price'],
    date: { kind: 'us_date', field: ['report_date'] },
    // no announced hour: the end of the report's day, never before it was out
    published: { field: ['report_date'], time: '23:59' },
  },
  // National Daily Direct Prior Day Slaughtered Swine: barrows and gilts bought on the negotiated
  // (spot) market from producers, the weighted average net price, carcass basis; dated on the
  // slaughter day the report covers (`for_date_begin`, the business day before `report_date`).
  LM_HG201: {
    report: 'LM_HG201',
    title: 'National Daily Direct Prior Day Slaughtered Swine',
    section: 'Barrows/Gilts',
    query: 'report_date',
    match: [{ field: ['purchase_type'], equals: 'Prod. Sold Negotiated' }],
    value: ['avg_net_price'],
    date: { kind: 'us_date', field: ['for_date_begin'] },
    // by 10:00 Central (lmHg201Release in @cds/schedule)
    published: { field: ['report_date'], time: '11:00' },
  },
  // Federal Milk Marketing Order class prices by order: the Class III price is uniform across the
  // orders; the "All Market Average" row carries it, per month.
  FMMO_CLASS: {
    report: 'FMMO_CLASS',
    title: 'Class Prices by Order (Federal Milk Marketing Orders)',
    section: 'Final Class Prices by Order',
    query: 'report_year',
    match: [{ field: ['MarketingArea'], equals: 'All Market Average' }],
    value: ['ClassIIIWhole'],
    date: { kind: 'year_month', year: ['report_year'], month: ['report_month'] },
  },
};

/** The report spec, or undefined for a report the service does not know. */
export function amsReport(report: string): AmsReportSpec | undefined {
  return AMS_REPORTS[report.trim().toUpperCase()];
}

/**
 * The fields every row of the report's section must carry, each as its accepted names: those
 * that say which row is the series and its date. The value field is checked apart: older answers
 * leave out a field whose value is null, so only its absence from every row of the series means
 * it was renamed (amsSectionRows).
 */
export function requiredAmsFields(spec: AmsReportSpec): (readonly string[])[] {
  const date = spec.date.kind === 'us_date' ? [spec.date.field] : [spec.date.year, spec.date.month];
  return [...date, ...spec.match.map((m) => m.field)];
}
