from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.cot_check import CotCheck
from ..models.cot_scope import CotScope
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.legacy_cot_changes import LegacyCotChanges
    from ..models.legacy_cot_index import LegacyCotIndex
    from ..models.legacy_cot_pct_of_oi import LegacyCotPctOfOi
    from ..models.net_only_position_group import NetOnlyPositionGroup
    from ..models.position_group import PositionGroup
    from ..models.position_group_with_spreading import PositionGroupWithSpreading


T = TypeVar("T", bound="LegacyCotReport")


@_attrs_define
class LegacyCotReport:
    """A Commitments of Traders report in the legacy format.

    Attributes:
        report_date (datetime.date): A calendar date, YYYY-MM-DD.
        commodity (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        open_interest (int):
        format_ (Literal['legacy']):
        commercial (PositionGroup): Positions of a trader group without spreading. net = long - short.
        non_commercial (PositionGroupWithSpreading): Positions of a trader group that also holds spreads. net = long -
            short.
        non_reportable (NetOnlyPositionGroup): Non-reportable positions (the net only variant): long, short and net =
            long - short.
        exchange (str | Unset):
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options (futures plus delta-
            adjusted options, the CFTC's combined reports; the CIT supplement is published combined only).
        failed_checks (list[CotCheck] | Unset): The consistency checks this report failed (docs/decisions.md "COT
            consistency checks"); absent when it passed every check that could be run. A report that fails is served as the
            CFTC published it.
        source (str | Unset): Where the numbers come from: `cftc:<format>:<CFTC contract market code>` (e.g.
            `cftc:legacy:067651`), `eia:<EIA series id>` (e.g. `eia:RWTC`), `nass:<USDA NASS Quick Stats data item>`,
            `worldbank:<Pink Sheet series code>` (e.g. `worldbank:GOLD`), `ams:<USDA AMS report>` (e.g. `ams:LM_CT150`), or
            `demo` for generated demonstration data that comes from no official source. Absent when unknown.
        last_updated (datetime.datetime | Unset): When the newest of these numbers was ingested by this service (RFC
            3339), not when the source published them. Absent when unknown.
        published_at (datetime.datetime | Unset): When the source published this version (RFC 3339): the release that
            carried it, from the source when it says (the Pink Sheet's "Updated on", EIA and NASS release fields) or from
            the release calendar (published_at_estimated). A resampled or transformed point carries the latest of the
            observations it comes from.
        first_seen_at (datetime.datetime | Unset): When this service first ingested that release (RFC 3339).
        published_at_estimated (bool | Unset): Present (true) when published_at is estimated (a release calendar, or the
            ingest time) rather than stated by the source.
        changes (LegacyCotChanges | Unset): Present with include=changes, except on the first report of the commodity in
            this format. Each value is this report's minus the previous report's (the previous report of the same commodity
            and format, even when it lies outside the requested dates or page); net = long - short, so its change is the
            change of long minus that of short. Example: previous commercial long 100, short 250; this report 120, 240 →
            {long: 20, short: -10, net: 30}.
        pct_of_oi (LegacyCotPctOfOi | Unset): Present with include=pct_of_oi when open_interest is above 0. Example:
            long 123,456 of open interest 400,000 → 30.9 (30.864); 0.05 % would print 0.1 (half away from zero).
        cot_index (LegacyCotIndex | Unset): Present with include=cot_index when the commodity has at least index_weeks
            reports in this format up to and including this one (absent before). For each group: (net - min) / (max - min) ×
            100 over the group's net in those index_weeks reports, rounded to one decimal half away from zero; null when max
            = min (every net in the window is the same). Example: nets 10, 30, 20 with index_weeks 3 → (20 - 10) / (30 - 10)
            × 100 = 50.
    """

    report_date: datetime.date
    commodity: str
    open_interest: int
    format_: Literal["legacy"]
    commercial: PositionGroup
    non_commercial: PositionGroupWithSpreading
    non_reportable: NetOnlyPositionGroup
    exchange: str | Unset = UNSET
    scope: CotScope | Unset = UNSET
    failed_checks: list[CotCheck] | Unset = UNSET
    source: str | Unset = UNSET
    last_updated: datetime.datetime | Unset = UNSET
    published_at: datetime.datetime | Unset = UNSET
    first_seen_at: datetime.datetime | Unset = UNSET
    published_at_estimated: bool | Unset = UNSET
    changes: LegacyCotChanges | Unset = UNSET
    pct_of_oi: LegacyCotPctOfOi | Unset = UNSET
    cot_index: LegacyCotIndex | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        report_date = self.report_date.isoformat()

        commodity = self.commodity

        open_interest = self.open_interest

        format_ = self.format_

        commercial = self.commercial.to_dict()

        non_commercial = self.non_commercial.to_dict()

        non_reportable = self.non_reportable.to_dict()

        exchange = self.exchange

        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value

        failed_checks: list[str] | Unset = UNSET
        if not isinstance(self.failed_checks, Unset):
            failed_checks = []
            for failed_checks_item_data in self.failed_checks:
                failed_checks_item = failed_checks_item_data.value
                failed_checks.append(failed_checks_item)

        source = self.source

        last_updated: str | Unset = UNSET
        if not isinstance(self.last_updated, Unset):
            last_updated = self.last_updated.isoformat()

        published_at: str | Unset = UNSET
        if not isinstance(self.published_at, Unset):
            published_at = self.published_at.isoformat()

        first_seen_at: str | Unset = UNSET
        if not isinstance(self.first_seen_at, Unset):
            first_seen_at = self.first_seen_at.isoformat()

        published_at_estimated = self.published_at_estimated

        changes: dict[str, Any] | Unset = UNSET
        if not isinstance(self.changes, Unset):
            changes = self.changes.to_dict()

        pct_of_oi: dict[str, Any] | Unset = UNSET
        if not isinstance(self.pct_of_oi, Unset):
            pct_of_oi = self.pct_of_oi.to_dict()

        cot_index: dict[str, Any] | Unset = UNSET
        if not isinstance(self.cot_index, Unset):
            cot_index = self.cot_index.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "report_date": report_date,
                "commodity": commodity,
                "open_interest": open_interest,
                "format": format_,
                "commercial": commercial,
                "non_commercial": non_commercial,
                "non_reportable": non_reportable,
            }
        )
        if exchange is not UNSET:
            field_dict["exchange"] = exchange
        if scope is not UNSET:
            field_dict["scope"] = scope
        if failed_checks is not UNSET:
            field_dict["failed_checks"] = failed_checks
        if source is not UNSET:
            field_dict["source"] = source
        if last_updated is not UNSET:
            field_dict["last_updated"] = last_updated
        if published_at is not UNSET:
            field_dict["published_at"] = published_at
        if first_seen_at is not UNSET:
            field_dict["first_seen_at"] = first_seen_at
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated
        if changes is not UNSET:
            field_dict["changes"] = changes
        if pct_of_oi is not UNSET:
            field_dict["pct_of_oi"] = pct_of_oi
        if cot_index is not UNSET:
            field_dict["cot_index"] = cot_index

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.legacy_cot_changes import LegacyCotChanges
        from ..models.legacy_cot_index import LegacyCotIndex
        from ..models.legacy_cot_pct_of_oi import LegacyCotPctOfOi
        from ..models.net_only_position_group import NetOnlyPositionGroup
        from ..models.position_group import PositionGroup
        from ..models.position_group_with_spreading import PositionGroupWithSpreading

        d = dict(src_dict)
        report_date = datetime.date.fromisoformat(d.pop("report_date"))

        commodity = d.pop("commodity")

        open_interest = d.pop("open_interest")

        format_ = cast(Literal["legacy"], d.pop("format"))
        if format_ != "legacy":
            raise ValueError(f"format must match const 'legacy', got '{format_}'")

        commercial = PositionGroup.from_dict(d.pop("commercial"))

        non_commercial = PositionGroupWithSpreading.from_dict(d.pop("non_commercial"))

        non_reportable = NetOnlyPositionGroup.from_dict(d.pop("non_reportable"))

        exchange = d.pop("exchange", UNSET)

        _scope = d.pop("scope", UNSET)
        scope: CotScope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = CotScope(_scope)

        _failed_checks = d.pop("failed_checks", UNSET)
        failed_checks: list[CotCheck] | Unset = UNSET
        if _failed_checks is not UNSET:
            failed_checks = []
            for failed_checks_item_data in _failed_checks:
                failed_checks_item = CotCheck(failed_checks_item_data)

                failed_checks.append(failed_checks_item)

        source = d.pop("source", UNSET)

        _last_updated = d.pop("last_updated", UNSET)
        last_updated: datetime.datetime | Unset
        if isinstance(_last_updated, Unset):
            last_updated = UNSET
        else:
            last_updated = datetime.datetime.fromisoformat(_last_updated)

        _published_at = d.pop("published_at", UNSET)
        published_at: datetime.datetime | Unset
        if isinstance(_published_at, Unset):
            published_at = UNSET
        else:
            published_at = datetime.datetime.fromisoformat(_published_at)

        _first_seen_at = d.pop("first_seen_at", UNSET)
        first_seen_at: datetime.datetime | Unset
        if isinstance(_first_seen_at, Unset):
            first_seen_at = UNSET
        else:
            first_seen_at = datetime.datetime.fromisoformat(_first_seen_at)

        published_at_estimated = d.pop("published_at_estimated", UNSET)

        _changes = d.pop("changes", UNSET)
        changes: LegacyCotChanges | Unset
        if isinstance(_changes, Unset):
            changes = UNSET
        else:
            changes = LegacyCotChanges.from_dict(_changes)

        _pct_of_oi = d.pop("pct_of_oi", UNSET)
        pct_of_oi: LegacyCotPctOfOi | Unset
        if isinstance(_pct_of_oi, Unset):
            pct_of_oi = UNSET
        else:
            pct_of_oi = LegacyCotPctOfOi.from_dict(_pct_of_oi)

        _cot_index = d.pop("cot_index", UNSET)
        cot_index: LegacyCotIndex | Unset
        if isinstance(_cot_index, Unset):
            cot_index = UNSET
        else:
            cot_index = LegacyCotIndex.from_dict(_cot_index)

        legacy_cot_report = cls(
            report_date=report_date,
            commodity=commodity,
            open_interest=open_interest,
            format_=format_,
            commercial=commercial,
            non_commercial=non_commercial,
            non_reportable=non_reportable,
            exchange=exchange,
            scope=scope,
            failed_checks=failed_checks,
            source=source,
            last_updated=last_updated,
            published_at=published_at,
            first_seen_at=first_seen_at,
            published_at_estimated=published_at_estimated,
            changes=changes,
            pct_of_oi=pct_of_oi,
            cot_index=cot_index,
        )

        return legacy_cot_report
