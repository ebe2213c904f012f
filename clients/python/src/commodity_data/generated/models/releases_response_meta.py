from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.dataset_id import DatasetId

if TYPE_CHECKING:
    from ..models.monthly_lag import MonthlyLag


T = TypeVar("T", bound="ReleasesResponseMeta")


@_attrs_define
class ReleasesResponseMeta:
    """
    Attributes:
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
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
        start_date (datetime.date):
        end_date (datetime.date):
        page (int):
        per_page (int):
        total (int):
        freshness (list[MonthlyLag]): Per month of the window, newest first.
    """

    request_id: str
    dataset: DatasetId
    start_date: datetime.date
    end_date: datetime.date
    page: int
    per_page: int
    total: int
    freshness: list[MonthlyLag]

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        dataset = self.dataset.value

        start_date = self.start_date.isoformat()

        end_date = self.end_date.isoformat()

        page = self.page

        per_page = self.per_page

        total = self.total

        freshness = []
        for freshness_item_data in self.freshness:
            freshness_item = freshness_item_data.to_dict()
            freshness.append(freshness_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request_id": request_id,
                "dataset": dataset,
                "start_date": start_date,
                "end_date": end_date,
                "page": page,
                "per_page": per_page,
                "total": total,
                "freshness": freshness,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.monthly_lag import MonthlyLag

        d = dict(src_dict)
        request_id = d.pop("request_id")

        dataset = DatasetId(d.pop("dataset"))

        start_date = datetime.date.fromisoformat(d.pop("start_date"))

        end_date = datetime.date.fromisoformat(d.pop("end_date"))

        page = d.pop("page")

        per_page = d.pop("per_page")

        total = d.pop("total")

        freshness = []
        _freshness = d.pop("freshness")
        for freshness_item_data in _freshness:
            freshness_item = MonthlyLag.from_dict(freshness_item_data)

            freshness.append(freshness_item)

        releases_response_meta = cls(
            request_id=request_id,
            dataset=dataset,
            start_date=start_date,
            end_date=end_date,
            page=page,
            per_page=per_page,
            total=total,
            freshness=freshness,
        )

        return releases_response_meta
