from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.consistency_day_checks import ConsistencyDayChecks


T = TypeVar("T", bound="ConsistencyDay")


@_attrs_define
class ConsistencyDay:
    """The consistency-check failures of one dataset on one date.

    Attributes:
        dataset (str): The dataset, as available_series names it: a COT dataset (cot_legacy, cot_legacy_combined,
            cot_cit, …) or supply_demand (the USDA supply and demand balance sheets).
        date (datetime.date): The report date (COT), or the edition's release date (supply_demand).
        failed_reports (int): How many reports (COT) or balance sheets (supply_demand) of that dataset and date failed.
        checks (ConsistencyDayChecks): Per failed check, how many reports or balance sheets failed it.
        commodities (list[str]): The commodities whose report failed, by id.
    """

    dataset: str
    date: datetime.date
    failed_reports: int
    checks: ConsistencyDayChecks
    commodities: list[str]

    def to_dict(self) -> dict[str, Any]:
        dataset = self.dataset

        date = self.date.isoformat()

        failed_reports = self.failed_reports

        checks = self.checks.to_dict()

        commodities = self.commodities

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "dataset": dataset,
                "date": date,
                "failed_reports": failed_reports,
                "checks": checks,
                "commodities": commodities,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.consistency_day_checks import ConsistencyDayChecks

        d = dict(src_dict)
        dataset = d.pop("dataset")

        date = datetime.date.fromisoformat(d.pop("date"))

        failed_reports = d.pop("failed_reports")

        checks = ConsistencyDayChecks.from_dict(d.pop("checks"))

        commodities = cast(list[str], d.pop("commodities"))

        consistency_day = cls(
            dataset=dataset,
            date=date,
            failed_reports=failed_reports,
            checks=checks,
            commodities=commodities,
        )

        return consistency_day
