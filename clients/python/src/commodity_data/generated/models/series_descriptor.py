from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.available_series_type import AvailableSeriesType
from ..models.frequency import Frequency
from ..models.price_basis import PriceBasis
from ..types import UNSET, Unset

T = TypeVar("T", bound="SeriesDescriptor")


@_attrs_define
class SeriesDescriptor:
    """A data series offered for a commodity, with its date range.

    Attributes:
        type_ (AvailableSeriesType): A series a commodity offers: a time series type, or a COT dataset: cot_legacy /
            cot_disaggregated (futures only), cot_legacy_combined / cot_disaggregated_combined (futures and options
            combined), cot_cit (the Commodity Index Trader supplement, 13 agricultural markets), or supply_demand (USDA
            supply and demand balance sheets: first_date and last_date are the release dates of the first and newest edition
            held).
        frequency (Frequency): Sampling frequency.
        first_date (datetime.date): A calendar date, YYYY-MM-DD.
        last_date (datetime.date): A calendar date, YYYY-MM-DD.
        price_basis (PriceBasis | Unset): What a price series is: `spot` (a daily spot price at a named delivery point,
            e.g. EIA WTI Cushing), `cash` (a negotiated cash or announced class price from a USDA AMS market report),
            `monthly_average` (the monthly average of a benchmark price, e.g. the World Bank Pink Sheet),
            `received_by_farmers` (the USDA NASS monthly average price received by farmers), `futures_settlement` (exchange
            futures settlement prices, from a file an operator loaded) or `demo` (generated demonstration data).
        attribution (str | Unset): The source's name and the terms of its data, as its licence asks to cite it (e.g.
            `The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0`). Absent when `source` is.
        source (str | Unset): Where the numbers come from: `cftc:<format>:<CFTC contract market code>` (e.g.
            `cftc:legacy:067651`), `eia:<EIA series id>` (e.g. `eia:RWTC`), `nass:<USDA NASS Quick Stats data item>`,
            `worldbank:<Pink Sheet series code>` (e.g. `worldbank:GOLD`), `ams:<USDA AMS report>` (e.g. `ams:LM_CT150`), or
            `demo` for generated demonstration data that comes from no official source. Absent when unknown.
        last_updated (datetime.datetime | Unset): When the newest of these numbers was ingested by this service (RFC
            3339), not when the source published them. Absent when unknown.
        first_published_at (datetime.datetime | Unset): The earliest publication this service holds of the series (RFC
            3339): the earliest as_of it answers. Absent when it holds no point-in-time data for it yet.
        regions (list[str] | Unset): supply_demand only: the regions the commodity has balance sheets for (the region
            parameter of GET /commodities/{slug}/supply-demand), sorted.
    """

    type_: AvailableSeriesType
    frequency: Frequency
    first_date: datetime.date
    last_date: datetime.date
    price_basis: PriceBasis | Unset = UNSET
    attribution: str | Unset = UNSET
    source: str | Unset = UNSET
    last_updated: datetime.datetime | Unset = UNSET
    first_published_at: datetime.datetime | Unset = UNSET
    regions: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        frequency = self.frequency.value

        first_date = self.first_date.isoformat()

        last_date = self.last_date.isoformat()

        price_basis: str | Unset = UNSET
        if not isinstance(self.price_basis, Unset):
            price_basis = self.price_basis.value

        attribution = self.attribution

        source = self.source

        last_updated: str | Unset = UNSET
        if not isinstance(self.last_updated, Unset):
            last_updated = self.last_updated.isoformat()

        first_published_at: str | Unset = UNSET
        if not isinstance(self.first_published_at, Unset):
            first_published_at = self.first_published_at.isoformat()

        regions: list[str] | Unset = UNSET
        if not isinstance(self.regions, Unset):
            regions = self.regions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "frequency": frequency,
                "first_date": first_date,
                "last_date": last_date,
            }
        )
        if price_basis is not UNSET:
            field_dict["price_basis"] = price_basis
        if attribution is not UNSET:
            field_dict["attribution"] = attribution
        if source is not UNSET:
            field_dict["source"] = source
        if last_updated is not UNSET:
            field_dict["last_updated"] = last_updated
        if first_published_at is not UNSET:
            field_dict["first_published_at"] = first_published_at
        if regions is not UNSET:
            field_dict["regions"] = regions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = AvailableSeriesType(d.pop("type"))

        frequency = Frequency(d.pop("frequency"))

        first_date = datetime.date.fromisoformat(d.pop("first_date"))

        last_date = datetime.date.fromisoformat(d.pop("last_date"))

        _price_basis = d.pop("price_basis", UNSET)
        price_basis: PriceBasis | Unset
        if isinstance(_price_basis, Unset):
            price_basis = UNSET
        else:
            price_basis = PriceBasis(_price_basis)

        attribution = d.pop("attribution", UNSET)

        source = d.pop("source", UNSET)

        _last_updated = d.pop("last_updated", UNSET)
        last_updated: datetime.datetime | Unset
        if isinstance(_last_updated, Unset):
            last_updated = UNSET
        else:
            last_updated = datetime.datetime.fromisoformat(_last_updated)

        _first_published_at = d.pop("first_published_at", UNSET)
        first_published_at: datetime.datetime | Unset
        if isinstance(_first_published_at, Unset):
            first_published_at = UNSET
        else:
            first_published_at = datetime.datetime.fromisoformat(_first_published_at)

        regions = cast(list[str], d.pop("regions", UNSET))

        series_descriptor = cls(
            type_=type_,
            frequency=frequency,
            first_date=first_date,
            last_date=last_date,
            price_basis=price_basis,
            attribution=attribution,
            source=source,
            last_updated=last_updated,
            first_published_at=first_published_at,
            regions=regions,
        )

        return series_descriptor
