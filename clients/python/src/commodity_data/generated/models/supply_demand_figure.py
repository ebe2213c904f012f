from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.supply_demand_check import SupplyDemandCheck
from ..models.supply_demand_status import SupplyDemandStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.supply_demand_revision import SupplyDemandRevision


T = TypeVar("T", bound="SupplyDemandFigure")


@_attrs_define
class SupplyDemandFigure:
    """One figure of a WASDE balance sheet: a commodity, region, marketing year and attribute.

    Attributes:
        marketing_year (str): A marketing year as WASDE writes it, YYYY/YY (2026/27: the year beginning in 2026), or
            YYYY for a table kept by calendar year (the U.S. meats: 2025).
        region (str): A region of the balance sheets in snake_case: united_states, world, or a country or group of the
            world tables (china, eu, major_exporters, …), as the table names it.
        attribute (str): A row of a balance sheet in snake_case of its name (area_planted, yield, beginning_stocks,
            production, imports, supply_total, feed_and_residual, food_seed_industrial, exports, use_total, ending_stocks,
            avg_farm_price, …), or the derived stocks_to_use.
        value (float):
        unit (str): The unit as USDA states it (Million Bushels, …).
        edition (str): The WASDE edition (the month of the report), YYYY-MM.
        published_at (datetime.datetime): When this version was published (RFC 3339): 12:00 New York on the edition
            release date, or the time of a corrected re-post.
        status (SupplyDemandStatus): estimate (a year WASDE marks "Est.", or a past year without a mark) or projection
            (a year marked "Proj.").
        published_at_estimated (bool | Unset): Present (true) when published_at comes from the release calendar, not the
            source.
        first_seen_at (datetime.datetime | Unset): When this service first ingested that release (RFC 3339).
        derived (bool | Unset): Present (true) on a figure this service computes rather than USDA publishes:
            stocks_to_use = ending stocks / total use, as a ratio.
        change (float | None | Unset): view=editions: this edition minus the previous edition that published the figure
            (null for the first).
        failed_checks (list[SupplyDemandCheck] | Unset): The consistency checks the balance sheet of this version
            failed; absent when none.
        revisions (list[SupplyDemandRevision] | Unset): With include=revisions: the earlier versions, oldest first
            (empty when never revised).
    """

    marketing_year: str
    region: str
    attribute: str
    value: float
    unit: str
    edition: str
    published_at: datetime.datetime
    status: SupplyDemandStatus
    published_at_estimated: bool | Unset = UNSET
    first_seen_at: datetime.datetime | Unset = UNSET
    derived: bool | Unset = UNSET
    change: float | None | Unset = UNSET
    failed_checks: list[SupplyDemandCheck] | Unset = UNSET
    revisions: list[SupplyDemandRevision] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        marketing_year = self.marketing_year

        region = self.region

        attribute = self.attribute

        value = self.value

        unit = self.unit

        edition = self.edition

        published_at = self.published_at.isoformat()

        status = self.status.value

        published_at_estimated = self.published_at_estimated

        first_seen_at: str | Unset = UNSET
        if not isinstance(self.first_seen_at, Unset):
            first_seen_at = self.first_seen_at.isoformat()

        derived = self.derived

        change: float | None | Unset
        if isinstance(self.change, Unset):
            change = UNSET
        else:
            change = self.change

        failed_checks: list[str] | Unset = UNSET
        if not isinstance(self.failed_checks, Unset):
            failed_checks = []
            for failed_checks_item_data in self.failed_checks:
                failed_checks_item = failed_checks_item_data.value
                failed_checks.append(failed_checks_item)

        revisions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.revisions, Unset):
            revisions = []
            for revisions_item_data in self.revisions:
                revisions_item = revisions_item_data.to_dict()
                revisions.append(revisions_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "marketing_year": marketing_year,
                "region": region,
                "attribute": attribute,
                "value": value,
                "unit": unit,
                "edition": edition,
                "published_at": published_at,
                "status": status,
            }
        )
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated
        if first_seen_at is not UNSET:
            field_dict["first_seen_at"] = first_seen_at
        if derived is not UNSET:
            field_dict["derived"] = derived
        if change is not UNSET:
            field_dict["change"] = change
        if failed_checks is not UNSET:
            field_dict["failed_checks"] = failed_checks
        if revisions is not UNSET:
            field_dict["revisions"] = revisions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.supply_demand_revision import SupplyDemandRevision

        d = dict(src_dict)
        marketing_year = d.pop("marketing_year")

        region = d.pop("region")

        attribute = d.pop("attribute")

        value = d.pop("value")

        unit = d.pop("unit")

        edition = d.pop("edition")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        status = SupplyDemandStatus(d.pop("status"))

        published_at_estimated = d.pop("published_at_estimated", UNSET)

        _first_seen_at = d.pop("first_seen_at", UNSET)
        first_seen_at: datetime.datetime | Unset
        if isinstance(_first_seen_at, Unset):
            first_seen_at = UNSET
        else:
            first_seen_at = datetime.datetime.fromisoformat(_first_seen_at)

        derived = d.pop("derived", UNSET)

        def _parse_change(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        change = _parse_change(d.pop("change", UNSET))

        _failed_checks = d.pop("failed_checks", UNSET)
        failed_checks: list[SupplyDemandCheck] | Unset = UNSET
        if _failed_checks is not UNSET:
            failed_checks = []
            for failed_checks_item_data in _failed_checks:
                failed_checks_item = SupplyDemandCheck(failed_checks_item_data)

                failed_checks.append(failed_checks_item)

        _revisions = d.pop("revisions", UNSET)
        revisions: list[SupplyDemandRevision] | Unset = UNSET
        if _revisions is not UNSET:
            revisions = []
            for revisions_item_data in _revisions:
                revisions_item = SupplyDemandRevision.from_dict(revisions_item_data)

                revisions.append(revisions_item)

        supply_demand_figure = cls(
            marketing_year=marketing_year,
            region=region,
            attribute=attribute,
            value=value,
            unit=unit,
            edition=edition,
            published_at=published_at,
            status=status,
            published_at_estimated=published_at_estimated,
            first_seen_at=first_seen_at,
            derived=derived,
            change=change,
            failed_checks=failed_checks,
            revisions=revisions,
        )

        return supply_demand_figure
