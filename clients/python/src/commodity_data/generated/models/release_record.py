from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dataset_id import DatasetId
from ..models.release_status import ReleaseStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.release_record_shifted import ReleaseRecordShifted


T = TypeVar("T", bound="ReleaseRecord")


@_attrs_define
class ReleaseRecord:
    """One release of a dataset, against the agency's calendar.

    Attributes:
        dataset (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy, futures only),
            `cftc_legacy_combined` (COT legacy, futures and options combined), `cftc_disaggregated` (COT disaggregated,
            futures only), `cftc_disaggregated_combined` (COT disaggregated, futures and options combined), `cftc_cit` (COT
            supplemental (Commodity Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series), `eia_monthly` (EIA
            monthly series), `nass_prices_received` (NASS prices received by farmers (Agricultural Prices)),
            `nass_quarterly_reports` (NASS Grain Stocks, Acreage and Prospective Plantings), `ams_lm_hg201` (AMS daily
            direct slaughtered swine (LM_HG201)), `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet`
            (World Bank Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets), `ecb_reference_rates`
            (ECB euro foreign exchange reference rates).
        report (str):
        scheduled_at (datetime.datetime | None): Its time on the agency's calendar (RFC 3339, UTC); null for a dataset
            no rule computes.
        local_date (datetime.date): Its date in America/New_York.
        data_date (datetime.date): The newest observation (or report) date it carries.
        status (ReleaseStatus): `scheduled` (its time is still ahead, or it is due and within the grace), `published`
            (served by its time plus the grace), `late` (served later, or still not served), `missing` (not served 7 days
            after its time), `cancelled` (the agency cancelled it). A release moved by a holiday or a shutdown carries
            `shifted`.
        first_served_at (datetime.datetime | None): When this service first served the data it carries; null when it has
            not.
        lag_seconds (float | None): first_served_at minus scheduled_at; null without both.
        shifted (ReleaseRecordShifted | Unset):
        cancelled_reason (str | Unset):
        backfilled (bool | Unset): Served more than 7 days after its time (loaded afterwards): its lag is not counted.
        published_at (datetime.datetime | Unset): The release's publication time as stored with its data.
        published_at_estimated (bool | Unset):
    """

    dataset: DatasetId
    report: str
    scheduled_at: datetime.datetime | None
    local_date: datetime.date
    data_date: datetime.date
    status: ReleaseStatus
    first_served_at: datetime.datetime | None
    lag_seconds: float | None
    shifted: ReleaseRecordShifted | Unset = UNSET
    cancelled_reason: str | Unset = UNSET
    backfilled: bool | Unset = UNSET
    published_at: datetime.datetime | Unset = UNSET
    published_at_estimated: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        dataset = self.dataset.value

        report = self.report

        scheduled_at: None | str
        if isinstance(self.scheduled_at, datetime.datetime):
            scheduled_at = self.scheduled_at.isoformat()
        else:
            scheduled_at = self.scheduled_at

        local_date = self.local_date.isoformat()

        data_date = self.data_date.isoformat()

        status = self.status.value

        first_served_at: None | str
        if isinstance(self.first_served_at, datetime.datetime):
            first_served_at = self.first_served_at.isoformat()
        else:
            first_served_at = self.first_served_at

        lag_seconds: float | None
        lag_seconds = self.lag_seconds

        shifted: dict[str, Any] | Unset = UNSET
        if not isinstance(self.shifted, Unset):
            shifted = self.shifted.to_dict()

        cancelled_reason = self.cancelled_reason

        backfilled = self.backfilled

        published_at: str | Unset = UNSET
        if not isinstance(self.published_at, Unset):
            published_at = self.published_at.isoformat()

        published_at_estimated = self.published_at_estimated

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "dataset": dataset,
                "report": report,
                "scheduled_at": scheduled_at,
                "local_date": local_date,
                "data_date": data_date,
                "status": status,
                "first_served_at": first_served_at,
                "lag_seconds": lag_seconds,
            }
        )
        if shifted is not UNSET:
            field_dict["shifted"] = shifted
        if cancelled_reason is not UNSET:
            field_dict["cancelled_reason"] = cancelled_reason
        if backfilled is not UNSET:
            field_dict["backfilled"] = backfilled
        if published_at is not UNSET:
            field_dict["published_at"] = published_at
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.release_record_shifted import ReleaseRecordShifted

        d = dict(src_dict)
        dataset = DatasetId(d.pop("dataset"))

        report = d.pop("report")

        def _parse_scheduled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_at_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        scheduled_at = _parse_scheduled_at(d.pop("scheduled_at"))

        local_date = datetime.date.fromisoformat(d.pop("local_date"))

        data_date = datetime.date.fromisoformat(d.pop("data_date"))

        status = ReleaseStatus(d.pop("status"))

        def _parse_first_served_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                first_served_at_type_0 = datetime.datetime.fromisoformat(data)

                return first_served_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        first_served_at = _parse_first_served_at(d.pop("first_served_at"))

        def _parse_lag_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lag_seconds = _parse_lag_seconds(d.pop("lag_seconds"))

        _shifted = d.pop("shifted", UNSET)
        shifted: ReleaseRecordShifted | Unset
        if isinstance(_shifted, Unset):
            shifted = UNSET
        else:
            shifted = ReleaseRecordShifted.from_dict(_shifted)

        cancelled_reason = d.pop("cancelled_reason", UNSET)

        backfilled = d.pop("backfilled", UNSET)

        _published_at = d.pop("published_at", UNSET)
        published_at: datetime.datetime | Unset
        if isinstance(_published_at, Unset):
            published_at = UNSET
        else:
            published_at = datetime.datetime.fromisoformat(_published_at)

        published_at_estimated = d.pop("published_at_estimated", UNSET)

        release_record = cls(
            dataset=dataset,
            report=report,
            scheduled_at=scheduled_at,
            local_date=local_date,
            data_date=data_date,
            status=status,
            first_served_at=first_served_at,
            lag_seconds=lag_seconds,
            shifted=shifted,
            cancelled_reason=cancelled_reason,
            backfilled=backfilled,
            published_at=published_at,
            published_at_estimated=published_at_estimated,
        )

        return release_record
