/**
 * Point in time: every version of every observation a read model was ever told, folded so that the
 * answer "as of" any instant is the one a replay of the releases published up to that instant gives
 * (docs/point-in-time.md). Pure functions over the documents' parts; the projector folds with
 * `foldRelease`, the storage adapters read with `viewItems`.
 *
 * The model. A *release* is one publication of a source (a Pink Sheet vintage, a COT Friday, an EIA
 * or NASS load): its `published_at`, when we first saw it, and the contiguous range of dates of a
 * bucket it carried. For each date, the versions are the values of the releases that carried it,
 * ordered by publication time, with consecutive equal values collapsed into the first: a release
 * that repeats the value in force only *confirms* it (the bucket's release list remembers that it
 * carried the date). The current answer is the newest version; `as_of T` is the newest version
 * published at or before T; the first release is the oldest. A view may date a first version whose
 * time is estimated by its release calendar instead (`releaseOfFirst`: a history loaded after the fact).
 *
 * Arrival order does not matter: a release folded late, between two others, is inserted at its
 * publication time, and the value it displaced comes back at the next release that carried the
 * date (found in the release list), exactly as a replay in publication order would have it.
 * Assumption: a release carries every observation of the bucket between its first and last date.
 */

/** A release that carried data of one bucket. */
export interface StoredRelease {
  /** published_at: RFC 3339 in UTC with milliseconds (`toISOString`), so text order is time order. */
  p: string;
  /** first_seen_at: the earliest ingest time (`occurred_at`) of the events of this release. */
  f: string;
  /** Present when `p` is estimated (a release calendar, or the ingest time), not stated by the source. */
  e?: true;
  /** The first and last date of the bucket the release carried. */
  lo: string;
  hi: string;
}

/** Something versioned: `r` is the index of its release in the bucket's `releases`. */
export interface Versioned {
  /** Absent on documents written before versions were kept. */
  r?: number;
}

/** The versioned parts of a bucket: the newest version per date, the older ones, the releases. */
export interface VersionedParts<T extends Versioned> {
  /** One per date, sorted by date: the version in force now. */
  current: T[];
  /** Superseded versions, sorted by date, then by publication time. */
  revised: T[];
  /** Sorted by publication time (`foldRelease` renumbers the items' `r` when one is inserted). */
  releases: StoredRelease[];
}

/** How a kind of item is dated and compared (values only: not provenance, not `r`). */
export interface ItemKind<T> {
  dateOf(item: T): string;
  same(a: T, b: T): boolean;
}

/** When a release was published and first seen. Instants as `toISOString()` text. */
export interface ReleaseStamp {
  publishedAt: string;
  firstSeenAt: string;
  estimated: boolean;
}

/** An RFC 3339 instant as `toISOString()` text (the form every stored instant takes); undefined when unreadable. */
export function normalizeInstant(instant: string): string | undefined {
  const ms = Date.parse(instant);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function addMs(instant: string, ms: number): string {
  return new Date(Date.parse(instant) + ms).toISOString();
}

function byDateThenRelease<T extends Versioned>(kind: ItemKind<T>, releases: readonly StoredRelease[]) {
  return (a: T, b: T): number => {
    const da = kind.dateOf(a);
    const db = kind.dateOf(b);
    if (da !== db) return da < db ? -1 : 1;
    const pa = a.r === undefined ? '' : (releases[a.r]?.p ?? '');
    const pb = b.r === undefined ? '' : (releases[b.r]?.p ?? '');
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
}

/**
 * Every version of each date (of `only` when given), oldest first: the revised ones (stored by date,
 * then publication time), then the current one.
 */
function versionsByDate<T>(
  parts: { current: readonly T[]; revised?: readonly T[] | undefined },
  kind: Pick<ItemKind<T>, 'dateOf'>,
  only?: ReadonlySet<string>,
): Map<string, T[]> {
  const byDate = new Map<string, T[]>();
  for (const v of [...(parts.revised ?? []), ...parts.current]) {
    const d = kind.dateOf(v);
    if (only !== undefined && !only.has(d)) continue;
    const list = byDate.get(d);
    if (list === undefined) byDate.set(d, [v]);
    else list.push(v);
  }
  return byDate;
}

/**
 * The index of the release published at `p` (registering it, or widening its dates and first
 * sighting), and whether the releases changed. `writable()` gives the array to change (the same
 * releases, copied on first use), so a release already registered as it is copies nothing.
 */
function registerRelease(
  releases: readonly StoredRelease[],
  writable: () => StoredRelease[],
  stamp: ReleaseStamp,
  lo: string,
  hi: string,
): { at: number; changed: boolean } {
  const at = releases.findIndex((r) => r.p === stamp.publishedAt);
  if (at === -1) {
    const out = writable();
    out.push({
      p: stamp.publishedAt,
      f: stamp.firstSeenAt,
      ...(stamp.estimated ? { e: true as const } : {}),
      lo,
      hi,
    });
    return { at: out.length - 1, changed: true };
  }
  const r = releases[at]!;
  const next: StoredRelease = {
    p: r.p,
    f: stamp.firstSeenAt < r.f ? stamp.firstSeenAt : r.f,
    ...(r.e === true && stamp.estimated ? { e: true as const } : {}),
    lo: lo < r.lo ? lo : r.lo,
    hi: hi > r.hi ? hi : r.hi,
  };
  if (next.f === r.f && next.e === r.e && next.lo === r.lo && next.hi === r.hi) return { at, changed: false };
  writable()[at] = next;
  return { at, changed: true };
}

function publishedOf(releases: readonly StoredRelease[], item: Versioned): string {
  return item.r === undefined ? '' : (releases[item.r]?.p ?? '');
}

/**
 * Folds one release's items (all of one bucket, one date each, without `r`) into the bucket's
 * versioned parts. Returns the same object when nothing changed (a replay, a confirmation of known
 * dates), so callers can skip the write. `releaseFolder` folds several releases in one go.
 *
 * Two different values for a date under one publication instant (a source re-issuing a report
 * under the same release, or the calendar stamping both): the one first seen keeps the instant (by
 * the release's first sighting, so the result does not depend on arrival order; at equal sightings
 * the later arrival is the restatement); the other becomes a version of its own at its first sighting (at least 1 ms after the instant),
 * estimated, so an `as_of` before we saw it never shows it.
 */
export function foldRelease<T extends Versioned>(
  parts: VersionedParts<T>,
  stamp: ReleaseStamp,
  items: readonly T[],
  kind: ItemKind<T>,
  /** Receives the dates whose versions changed (for the projector's part positions). */
  changedDates?: Set<string>,
): VersionedParts<T> {
  const folder = releaseFolder(parts, kind);
  folder.fold(stamp, items, changedDates);
  return folder.parts();
}

/** Releases folded one after another into one bucket's parts (see `releaseFolder`). */
export interface ReleaseFolder<T extends Versioned> {
  /** Folds one release (as `foldRelease`); true when it changed anything. */
  fold(stamp: ReleaseStamp, items: readonly T[], changedDates?: Set<string>): boolean;
  /** The parts with every release folded so far: the very object given when none changed anything. */
  parts(): VersionedParts<T>;
}

/**
 * Places a version of date `d` published at `p` in `list` (the versions of `d`, oldest first): false
 * when the version in force at `p` already has that value (a confirmation).
 */
function placeVersion<T extends Versioned>(
  kind: ItemKind<T>,
  releases: readonly StoredRelease[],
  list: T[],
  d: string,
  item: T,
  p: string,
): boolean {
  // i: the version in force at p (published before it); j: the next one
  let j = list.findIndex((v) => publishedOf(releases, v) > p);
  if (j === -1) j = list.length;
  const inForce = j > 0 ? list[j - 1] : undefined;
  if (inForce !== undefined && kind.same(inForce, item)) return false; // a confirmation
  const after: T[] = [item];
  const nextP = j < list.length ? publishedOf(releases, list[j]!) : undefined;
  if (inForce !== undefined) {
    // releases after p (and before the next version) that carried d carried the displaced value
    let back: number | undefined;
    releases.forEach((x, k) => {
      if (x.p > p && (nextP === undefined || x.p < nextP) && x.lo <= d && d <= x.hi) {
        if (back === undefined || x.p < releases[back]!.p) back = k;
      }
    });
    if (back !== undefined) after.push({ ...inForce, r: back });
  }
  // the next version repeats what now precedes it: it is no longer a change
  const drop = j < list.length && kind.same(list[j]!, after.at(-1)!) ? 1 : 0;
  list.splice(j, drop, ...after);
  return true;
}

/** The parts of `held` with the versions of the `touched` dates replaced by theirs, sorted and renumbered. */
function partsAfter<T extends Versioned>(
  held: VersionedParts<T>,
  kind: ItemKind<T>,
  releases: StoredRelease[],
  versions: ReadonlyMap<string, T[]>,
  touched: ReadonlySet<string>,
): VersionedParts<T> {
  if (touched.size === 0) return inPublicationOrder({ current: held.current, revised: held.revised, releases });
  const current: T[] = [];
  const revised: T[] = [];
  for (const v of held.current) if (!touched.has(kind.dateOf(v))) current.push(v);
  for (const v of held.revised) if (!touched.has(kind.dateOf(v))) revised.push(v);
  for (const d of touched) {
    const list = versions.get(d)!;
    current.push(list.at(-1)!);
    revised.push(...list.slice(0, -1));
  }
  const order = byDateThenRelease(kind, releases);
  current.sort(order);
  revised.sort(order);
  return inPublicationOrder({ current, revised, releases });
}

/**
 * `foldRelease` for a run of releases into one bucket (the events of a batch): the bucket is
 * indexed by date once, each release costs only the dates it carries (a confirmation compares them
 * and changes nothing), and the sorted parts are rebuilt once, by `parts()`. The result equals
 * folding the releases one by one with `foldRelease` (property-tested).
 */
export function releaseFolder<T extends Versioned>(held: VersionedParts<T>, kind: ItemKind<T>): ReleaseFolder<T> {
  /** The releases as folded so far (unsorted until `parts()`: items' `r` index this array); copied before a change. */
  let releases: readonly StoredRelease[] = held.releases;
  let changedAny = false;
  /** The versions of the dates looked up so far, oldest first (our own arrays). */
  const versions = new Map<string, T[]>();
  const touched = new Set<string>();
  let indexed: Map<string, T[]> | undefined;

  /** Every version of date `d`, oldest first: the revised ones (by publication time), then the current. */
  const versionsOf = (d: string): T[] => {
    const known = versions.get(d);
    if (known !== undefined) return known;
    indexed ??= versionsByDate(held, kind);
    const list = [...(indexed.get(d) ?? [])];
    versions.set(d, list);
    return list;
  };

  const place = (d: string, list: T[], item: T, p: string): boolean => placeVersion(kind, releases, list, d, item, p);

  const fold = (stamp: ReleaseStamp, items: readonly T[], changedDates?: Set<string>): boolean => {
    if (items.length === 0) return false;
    let lo = kind.dateOf(items[0]!);
    let hi = lo;
    for (const item of items) {
      const d = kind.dateOf(item);
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
    // What this release leaves when it changes nothing (registering may widen a release it then drops).
    const before = releases;
    const writable = (): StoredRelease[] => {
      if (releases === before) releases = [...before];
      return releases as StoredRelease[];
    };
    // when the release was first seen before this event (a same-instant conflict is decided by it)
    const priorSeen = before.find((x) => x.p === stamp.publishedAt)?.f;
    const { at: r, changed: registered } = registerRelease(releases, writable, stamp, lo, hi);
    let changed = registered;
    const dates: string[] = [];

    for (const raw of items) {
      const d = kind.dateOf(raw);
      const list = versionsOf(d);
      const p = stamp.publishedAt;
      const atSame = list.findIndex((v) => publishedOf(releases, v) === p);
      if (atSame === -1) {
        if (!place(d, list, { ...raw, r }, p)) continue;
      } else {
        const holder = list[atSame]!;
        if (kind.same(holder, raw)) continue;
        // Two values under one instant: the one seen first was published then; the other is a
        // restatement, a version of its own from when it was first seen (estimated), so an as_of
        // before we saw it never shows it. Decided by first sighting, not arrival (seen at the same
        // instant, the one arriving later is the restatement: the stream's order).
        const holderSeen = priorSeen ?? stamp.firstSeenAt;
        const newcomerFirst = stamp.firstSeenAt < holderSeen;
        let restated: T = raw;
        let restatedSeen = stamp.firstSeenAt;
        let did = false;
        if (newcomerFirst) {
          restated = holder;
          restatedSeen = holderSeen;
          list[atSame] = { ...raw, r: holder.r };
          if (atSame + 1 < list.length && kind.same(list[atSame + 1]!, list[atSame])) list.splice(atSame + 1, 1);
          if (atSame > 0 && kind.same(list[atSame - 1]!, list[atSame])) list.splice(atSame, 1);
          did = true;
        }
        const seen = restatedSeen > p ? restatedSeen : addMs(p, 1);
        const { at: rel } = registerRelease(
          releases,
          writable,
          { publishedAt: seen, firstSeenAt: restatedSeen, estimated: true },
          d,
          d,
        );
        const again = list.findIndex((v) => publishedOf(releases, v) === seen);
        if (again === -1) did = place(d, list, { ...restated, r: rel }, seen) || did;
        else if (!kind.same(list[again]!, restated)) {
          list.splice(again, 1);
          place(d, list, { ...restated, r: rel }, seen);
          did = true;
        }
        if (!did) continue;
      }
      dates.push(d);
      changed = true;
    }
    if (!changed) {
      releases = before;
      return false;
    }
    for (const d of dates) {
      touched.add(d);
      changedDates?.add(d);
    }
    changedAny = true;
    return true;
  };

  const parts = (): VersionedParts<T> =>
    changedAny ? partsAfter(held, kind, releases as StoredRelease[], versions, touched) : held;

  return { fold, parts };
}

/**
 * The releases sorted by publication time and the items' `r` renumbered, so the stored form of a
 * bucket does not depend on the order its releases arrived in (replicas and rebuilds compare equal).
 */
function inPublicationOrder<T extends Versioned>(parts: VersionedParts<T>): VersionedParts<T> {
  const order = parts.releases.map((_, i) => i).sort((a, b) => (parts.releases[a]!.p < parts.releases[b]!.p ? -1 : 1));
  if (order.every((old, i) => old === i)) return parts;
  const renumber = new Map(order.map((old, i) => [old, i] as const));
  const moved = (v: T): T => (v.r === undefined ? v : { ...v, r: renumber.get(v.r)! });
  return {
    current: parts.current.map(moved),
    revised: parts.revised.map(moved),
    releases: order.map((old) => parts.releases[old]!),
  };
}

/** Which view of the versions a read asks for. */
export interface PointInTimeView {
  /** Only what was published at or before this instant (`toISOString()` text). */
  asOf?: string | undefined;
  /** The first published version of every observation instead of the newest. */
  firstRelease?: boolean | undefined;
  /** Each item with the versions before it. */
  revisions?: boolean | undefined;
  /**
   * The release calendar's estimate of when an observation of a date was first published
   * (`toISOString()` text; undefined: none for that date). The first version of a date whose
   * release time is estimated counts as published at the earlier of the two (`releaseOfFirst`);
   * later versions and stated times are as stored. Every view uses it, the current one too (for
   * its items that are their date's first version, `releaseInForce`), so one observation has one
   * publication time whichever view serves it.
   */
  firstReleaseEstimate?: ((date: string) => string | undefined) | undefined;
}

/** True for the view every read had before versions: the newest of everything. */
export function isCurrentView(view: PointInTimeView | undefined): boolean {
  return view === undefined || (view.asOf === undefined && view.firstRelease !== true && view.revisions !== true);
}

/** An item of a view, with its release and, when asked, the versions before it (oldest first). */
export interface ViewedItem<T> {
  item: T;
  release: StoredRelease | undefined;
  earlier?: { item: T; release: StoredRelease | undefined }[];
}

/**
 * The release a date's first version counts as published by: its own, or, when its time is
 * estimated and the calendar's estimate for the date is earlier, the same release at the estimate
 * (a history loaded long after its release, by a snapshot or a backfill, was public long before
 * the load stamped it). `cache` keeps one copy per release and estimate (a week of daily points
 * shares one). Later versions keep their time: a revision is known only from its own release.
 */
export function releaseOfFirst(
  release: StoredRelease | undefined,
  date: string,
  estimate: ((date: string) => string | undefined) | undefined,
  cache?: Map<StoredRelease, Map<string, StoredRelease>>,
): StoredRelease | undefined {
  if (release === undefined || release.e !== true || estimate === undefined) return release;
  const at = estimate(date);
  if (at === undefined || at >= release.p) return release;
  let copies = cache?.get(release);
  if (copies === undefined) {
    copies = new Map<string, StoredRelease>();
    cache?.set(release, copies);
  }
  let moved = copies.get(at);
  if (moved === undefined) copies.set(at, (moved = { ...release, p: at }));
  return moved;
}

/**
 * For one bucket's releases: the release the current view serves the version in force of a date
 * (its release index `r`) with: `releaseOfFirst`'s when it is the date's first version, else its
 * own. It is the first version when no release published before its own carried the date (the
 * releases are sorted by publication time, and a release carries every date between its first and
 * last: the header's assumption), which the current view tells from the releases alone, without
 * the older versions. Checked only where the estimate would move the time (an estimated release,
 * an earlier estimate): first against the span of the earlier releases (a date past it, the usual
 * newest data, is first at once), then release by release, newest first.
 */
export function releaseInForce(
  releases: readonly StoredRelease[],
  estimate: ((date: string) => string | undefined) | undefined,
): (r: number | undefined, date: string) => StoredRelease | undefined {
  const moved = new Map<StoredRelease, Map<string, StoredRelease>>();
  // loBefore[r], hiBefore[r]: the first and last date the releases before r carried (made on first need)
  let loBefore: string[] | undefined;
  let hiBefore: string[] | undefined;
  return (r, date) => {
    const release = r === undefined ? undefined : releases[r];
    const first = releaseOfFirst(release, date, estimate, moved);
    if (first === release) return release;
    if (loBefore === undefined || hiBefore === undefined) {
      loBefore = [''];
      hiBefore = [''];
      for (let j = 0; j < releases.length; j++) {
        const x = releases[j]!;
        loBefore.push(j === 0 || x.lo < loBefore[j]! ? x.lo : loBefore[j]!);
        hiBefore.push(x.hi > hiBefore[j]! ? x.hi : hiBefore[j]!);
      }
    }
    if (r === 0 || date > hiBefore[r!]! || date < loBefore[r!]!) return first;
    for (let j = r! - 1; j >= 0; j--) {
      const earlier = releases[j]!;
      if (earlier.lo <= date && date <= earlier.hi) return release;
    }
    return first;
  };
}

/**
 * The items of a bucket in a view, sorted by date. Items without a release (documents written
 * before versions were kept) count as published before any instant. With `firstReleaseEstimate`,
 * each date's first version counts as published as `releaseOfFirst` says, in what the view keeps
 * and in the release it is served with (the current view: `releaseInForce`).
 */
export function viewItems<T extends Versioned>(
  parts: { current: readonly T[]; revised?: readonly T[] | undefined; releases?: readonly StoredRelease[] | undefined },
  view: PointInTimeView | undefined,
  kind: Pick<ItemKind<T>, 'dateOf'>,
): ViewedItem<T>[] {
  const releases = parts.releases ?? [];
  const releaseOf = (item: T): StoredRelease | undefined => (item.r === undefined ? undefined : releases[item.r]);
  const asOf = view?.asOf;
  const estimate = view?.firstReleaseEstimate;
  const estimated = estimate !== undefined && releases.some((x) => x.e === true);
  if (isCurrentView(view)) {
    const inForce = estimated ? releaseInForce(releases, estimate) : undefined;
    return parts.current.map((item) => ({
      item,
      release: inForce === undefined ? releaseOf(item) : inForce(item.r, kind.dateOf(item)),
    }));
  }
  if (!estimated && view?.firstRelease !== true && view?.revisions !== true && releases.every((x) => x.p <= asOf!)) {
    return parts.current.map((item) => ({ item, release: releaseOf(item) }));
  }
  const byDate = versionsByDate(parts, kind);
  const moved = new Map<StoredRelease, Map<string, StoredRelease>>();
  const visible = (v: ViewedItem<T>) => asOf === undefined || v.item.r === undefined || (v.release?.p ?? '') <= asOf;
  const out: ViewedItem<T>[] = [];
  for (const d of [...byDate.keys()].sort()) {
    const list = byDate.get(d)!;
    // oldest first: the first version's release may count from the calendar's estimate
    const first: ViewedItem<T> = { item: list[0]!, release: releaseOfFirst(releaseOf(list[0]!), d, estimate, moved) };
    if (list.length === 1) {
      if (!visible(first)) continue;
      if (view?.revisions === true) first.earlier = [];
      out.push(first);
      continue;
    }
    const all: ViewedItem<T>[] = [first, ...list.slice(1).map((item) => ({ item, release: releaseOf(item) }))];
    const versions = all.filter(visible);
    if (versions.length === 0) continue;
    const at = view?.firstRelease === true ? 0 : versions.length - 1;
    const viewed = versions[at]!;
    if (view?.revisions === true) viewed.earlier = versions.slice(0, at);
    out.push(viewed);
  }
  return out;
}

/** The earliest publication time of a bucket's releases (undefined without any). */
export function firstPublished(releases: readonly StoredRelease[] | undefined): string | undefined {
  let first: string | undefined;
  for (const r of releases ?? []) if (first === undefined || r.p < first) first = r.p;
  return first;
}
