from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dataset_condition import DatasetCondition
from ..models.dataset_id import DatasetId
from ..models.dataset_summary_calendar_rule_type_0 import (
    DatasetSummaryCalendarRuleType0,
)
from ..models.dataset_summary_source import DatasetSummarySource

if TYPE_CHECKING:
    from ..models.dataset_day import DatasetDay
    from ..models.monthly_lag import MonthlyLag
    from ..models.release_record import ReleaseRecord


T = TypeVar("T", bound="DatasetSummary")


@_attrs_define
class DatasetSummary:
    """A dataset with its daily conditions and its lag per month.

    Attributes:
        id (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy, futures only),
            `cftc_legacy_combined` (COT legacy, futures and options combined), `cftc_disaggregated` (COT disaggregated,
            futures only), `cftc_disaggregated_combined` (COT disaggregated, futures and options combined), `cftc_cit` (COT
            supplemental (Commodity Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series), `eia_monthly` (EIA
            monthly series), `nass_prices_received` (NASS prices received by farmers (Agricultural Prices)),
            `nass_quarterly_reports` (NASS Grain Stocks, Acreage and Prospective Plantings), `ams_lm_hg201` (AMS daily
            direct slaughtered swine (LM_HG201)), `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet`
            (World Bank Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets), `ecb_reference_rates`
            (ECB euro foreign exchange reference rates).
        source (DatasetSummarySource):
        title (str):
        calendar_rule (DatasetSummaryCalendarRuleType0 | None):
        condition (DatasetCondition): A dataset's condition on a day: `missing` (a release due that day was not served
            within 7 days of its time), `late` (it was served after its time plus the grace, or is still not served),
            `degraded` (a consistency check failed on the data it carried, or the source answered errors that day), else
            `available` (a cancelled release leaves the day available).
        days (list[DatasetDay]): The last 90 days, newest first (today first).
        last_release (None | ReleaseRecord):
        next_release (None | ReleaseRecord):
        freshness (list[MonthlyLag]): The last 12 months, newest first.
    """

    id: DatasetId
    source: DatasetSummarySource
    title: str
    calendar_rule: DatasetSummaryCalendarRuleType0 | None
    condition: DatasetCondition
    days: list[DatasetDay]
    last_release: None | ReleaseRecord
    next_release: None | ReleaseRecord
    freshness: list[MonthlyLag]

    def to_dict(self) -> dict[str, Any]:
        from ..models.release_record import ReleaseRecord

        id = self.id.value

        source = self.source.value

        title = self.title

        calendar_rule: None | str
        if isinstance(self.calendar_rule, DatasetSummaryCalendarRuleType0):
            calendar_rule = self.calendar_rule.value
        else:
            calendar_rule = self.calendar_rule

        condition = self.condition.value

        days = []
        for days_item_data in self.days:
            days_item = days_item_data.to_dict()
            days.append(days_item)

        last_release: dict[str, Any] | None
        if isinstance(self.last_release, ReleaseRecord):
            last_release = self.last_release.to_dict()
        else:
            last_release = self.last_release

        next_release: dict[str, Any] | None
        if isinstance(self.next_release, ReleaseRecord):
            next_release = self.next_release.to_dict()
        else:
            next_release = self.next_release

        freshness = []
        for freshness_item_data in self.freshness:
            freshness_item = freshness_item_data.to_dict()
            freshness.append(freshness_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "source": source,
                "title": title,
                "calendar_rule": calendar_rule,
                "condition": condition,
                "days": days,
                "last_release": last_release,
                "next_release": next_release,
                "freshness": freshness,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dataset_day import DatasetDay
        from ..models.monthly_lag import MonthlyLag
        from ..models.release_record import ReleaseRecord

        d = dict(src_dict)
        id = DatasetId(d.pop("id"))

        source = DatasetSummarySource(d.pop("source"))

        title = d.pop("title")

        def _parse_calendar_rule(
            data: object,
        ) -> DatasetSummaryCalendarRuleType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                calendar_rule_type_0 = DatasetSummaryCalendarRuleType0(data)

                return calendar_rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DatasetSummaryCalendarRuleType0 | None, data)

        calendar_rule = _parse_calendar_rule(d.pop("calendar_rule"))

        condition = DatasetCondition(d.pop("condition"))

        days = []
        _days = d.pop("days")
        for days_item_data in _days:
            days_item = DatasetDay.from_dict(days_item_data)

            days.append(days_item)

        def _parse_last_release(data: object) -> None | ReleaseRecord:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_release_type_0 = ReleaseRecord.from_dict(data)

                return last_release_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReleaseRecord, data)

        last_release = _parse_last_release(d.pop("last_release"))

        def _parse_next_release(data: object) -> None | ReleaseRecord:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                next_release_type_0 = ReleaseRecord.from_dict(data)

                return next_release_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReleaseRecord, data)

        next_release = _parse_next_release(d.pop("next_release"))

        freshness = []
        _freshness = d.pop("freshness")
        for freshness_item_data in _freshness:
            freshness_item = MonthlyLag.from_dict(freshness_item_data)

            freshness.append(freshness_item)

        dataset_summary = cls(
            id=id,
            source=source,
            title=title,
            calendar_rule=calendar_rule,
            condition=condition,
            days=days,
            last_release=last_release,
            next_release=next_release,
            freshness=freshness,
        )

        return dataset_summary
