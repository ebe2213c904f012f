import { editionOf, STOCKS_TO_USE, type SupplyDemandFigure } from '@cds/contracts';
import {
  viewItems,
  type PointInTimeView,
  type StoredFigure,
  type StoredRelease,
  type SupplyDemandBucketDoc,
} from '@cds/read-models';
import { derivedStocksToUse, hasStocksToUse } from './stocks-to-use.ts';

/**
 * The answers of GET /commodities/{slug}/supply-demand computed from whole balance sheets (pure):
 * the figures in force in a point-in-time view, and one figure across the releases of its sheet.
 * A sheet's figures are versioned as the series' observations are (libs/read-models versions.ts):
 * the item key is the attribute and unit, the releases are its editions and re-posts.
 */

/**
 * The balance-sheet order of the rows: an attribute is placed by the first entry it equals or
 * starts with (`ethanol` places `ethanol_and_by_products`); the others follow in text order.
 */
const BALANCE_SHEET_ORDER = [
  'area_planted',
  'area_harvested',
  'yield',
  'beginning_stocks',
  'production',
  'imports',
  'supply_total',
  'crushings',
  'feed_and_residual',
  'domestic_feed',
  'food_seed_industrial',
  'ethanol',
  'seed',
  'residual',
  'domestic_disappearance',
  'domestic_use',
  'deliveries',
  'domestic_total',
  'exports',
  'use_total',
  'unaccounted',
  'ending_stocks',
  STOCKS_TO_USE,
  'avg_farm_price',
] as const;

/** Where an attribute goes in a balance sheet: its entry's index, or after every entry. */
export function attributeRank(attribute: string): number {
  const i = BALANCE_SHEET_ORDER.findIndex((p) => attribute === p || attribute.startsWith(`${p}_`));
  return i === -1 ? BALANCE_SHEET_ORDER.length : i;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Balance-sheet order of two figures of one sheet: attribute (rank, then text), then unit. */
export function compareFigures(a: { attribute: string; unit: string }, b: { attribute: string; unit: string }) {
  return (
    attributeRank(a.attribute) - attributeRank(b.attribute) ||
    byText(a.attribute, b.attribute) ||
    byText(a.unit, b.unit)
  );
}

/** A sheet's versions with its derived figure among them, and the releases that carried each key. */
interface SheetParts {
  sheet: SupplyDemandBucketDoc;
  current: StoredFigure[];
  revised: StoredFigure[];
  releases: readonly StoredRelease[];
  /** The key whose releases carried a figure (the derived one: its ending stocks'). */
  basisOf(key: string): string;
}

/** The parts of a sheet to view, the derived stocks_to_use added for grains (never stored). */
export function sheetParts(sheet: SupplyDemandBucketDoc): SheetParts {
  const derived = hasStocksToUse(sheet.commodity_id) ? derivedStocksToUse(sheet) : undefined;
  const current = [...sheet.figures];
  const revised = [...(sheet.revised ?? [])];
  if (derived !== undefined) {
    current.push(derived.versions.at(-1)!);
    revised.push(...derived.versions.slice(0, -1));
  }
  const derivedKey = derived?.versions[0]!.k;
  return {
    sheet,
    current,
    revised,
    releases: sheet.releases ?? [],
    basisOf: (key) => (key === derivedKey ? derived!.basis : key),
  };
}

/** The attributes of some sheets, derived included, in balance-sheet order. */
export function attributesOf(parts: readonly SheetParts[]): string[] {
  const names = new Set(parts.flatMap((p) => p.current.map((f) => f.a)));
  return [...names].sort((a, b) => attributeRank(a) - attributeRank(b) || byText(a, b));
}

/** The publication fields of a version's release. */
function published(release: StoredRelease) {
  return {
    edition: editionOf(release.p),
    published_at: release.p,
    ...(release.e === true ? { published_at_estimated: true as const } : {}),
  };
}

/** A stored (or derived) version as served, published at `release`. */
function render(sheet: SupplyDemandBucketDoc, f: StoredFigure, release: StoredRelease): SupplyDemandFigure {
  return {
    marketing_year: sheet.marketing_year,
    region: sheet.region,
    attribute: f.a,
    value: f.v,
    unit: f.u,
    ...published(release),
    status: f.s,
    first_seen_at: release.f,
    ...(f.a === STOCKS_TO_USE ? { derived: true as const } : {}),
    ...(f.x === undefined || f.x.length === 0 ? {} : { failed_checks: f.x }),
  };
}

const kind = { dateOf: (f: StoredFigure) => f.k };

/**
 * view=figures: the figures of the sheets in a point-in-time view (the newest, as of an instant,
 * first released; with their earlier versions when asked), newest marketing year first, then in
 * balance-sheet order. A version without a release (none is written so) is left out: it has no
 * edition to name.
 */
export function figuresInView(
  parts: readonly SheetParts[],
  view: PointInTimeView | undefined,
  attribute: string | undefined,
): SupplyDemandFigure[] {
  const ordered = [...parts].sort((a, b) => byText(b.sheet.marketing_year, a.sheet.marketing_year));
  return ordered.flatMap((p) => {
    const figures: SupplyDemandFigure[] = [];
    for (const viewed of viewItems(p, view, kind)) {
      if (viewed.release === undefined || (attribute !== undefined && viewed.item.a !== attribute)) continue;
      const figure = render(p.sheet, viewed.item, viewed.release);
      if (view?.revisions === true) {
        figure.revisions = (viewed.earlier ?? []).flatMap(({ item, release }) =>
          release === undefined ? [] : [{ value: item.v, ...published(release), status: item.s }],
        );
      }
      figures.push(figure);
    }
    return figures.sort(compareFigures);
  });
}

/** A difference of two published figures without binary noise (0.1 + 0.2): rounded to 6 decimals. */
export function changeBetween(value: number, previous: number): number {
  return Math.round((value - previous) * 1e6) / 1e6;
}

/**
 * view=editions: one attribute of one sheet (each unit it is stated in) at every release of the
 * sheet that carried it, up to `asOf`, oldest first (then by unit): the version in force at that
 * release, published as that release (its edition, published_at), and `change` from the value at
 * the previous such release of the same unit (null at the first).
 */
export function editionsOf(parts: SheetParts, attribute: string, asOf: string | undefined): SupplyDemandFigure[] {
  const versions = [...parts.revised, ...parts.current].filter((f) => f.a === attribute);
  const keys = [...new Set(versions.map((f) => f.k))];
  const releases = parts.releases.filter((r) => asOf === undefined || r.p <= asOf).sort((a, b) => byText(a.p, b.p));
  const publishedAt = (f: StoredFigure) => (f.r === undefined ? '' : (parts.releases[f.r]?.p ?? ''));
  const rows: SupplyDemandFigure[] = [];
  for (const key of keys) {
    const basis = parts.basisOf(key);
    const ofKey = versions.filter((f) => f.k === key).sort((a, b) => byText(publishedAt(a), publishedAt(b)));
    let previous: number | undefined;
    for (const release of releases) {
      if (basis < release.lo || basis > release.hi) continue;
      const inForce = ofKey.filter((f) => publishedAt(f) <= release.p).at(-1);
      if (inForce === undefined) continue;
      rows.push({
        ...render(parts.sheet, inForce, release),
        change: previous === undefined ? null : changeBetween(inForce.v, previous),
      });
      previous = inForce.v;
    }
  }
  return rows.sort((a, b) => byText(a.published_at, b.published_at) || byText(a.unit, b.unit));
}
