from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.frequency import Frequency
from ..models.price_basis import PriceBasis
from ..models.series_type import SeriesType
from ..models.transform import Transform
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversion import Conversion


T = TypeVar("T", bound="SeriesMeta")


@_attrs_define
class SeriesMeta:
    """Metadata of a series response.

    Attributes:
        commodity_id (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        type_ (SeriesType): A time series type served by GET /commodities/{slug}/series.
        frequency (Frequency): Sampling frequency.
        transform (Transform): none, change (v[t]-v[t-1]), pct_change (percent), cumulative (running sum).
        count (int):
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
        unit (str | Unset):
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
        as_of (datetime.datetime | Unset): With as_of: the instant the answer is as of (RFC 3339, UTC).
        first_release (bool | Unset): With first_release=true: each point is the first published version.
        conversion (Conversion | Unset): With currency or unit: the working of the conversion, from what the source
            published to what is served. Conversion happens on the observations themselves, before resampling and
            transforms.
    """

    commodity_id: str
    type_: SeriesType
    frequency: Frequency
    transform: Transform
    count: int
    request_id: str
    unit: str | Unset = UNSET
    price_basis: PriceBasis | Unset = UNSET
    attribution: str | Unset = UNSET
    source: str | Unset = UNSET
    last_updated: datetime.datetime | Unset = UNSET
    as_of: datetime.datetime | Unset = UNSET
    first_release: bool | Unset = UNSET
    conversion: Conversion | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        commodity_id = self.commodity_id

        type_ = self.type_.value

        frequency = self.frequency.value

        transform = self.transform.value

        count = self.count

        request_id = self.request_id

        unit = self.unit

        price_basis: str | Unset = UNSET
        if not isinstance(self.price_basis, Unset):
            price_basis = self.price_basis.value

        attribution = self.attribution

        source = self.source

        last_updated: str | Unset = UNSET
        if not isinstance(self.last_updated, Unset):
            last_updated = self.last_updated.isoformat()

        as_of: str | Unset = UNSET
        if not isinstance(self.as_of, Unset):
            as_of = self.as_of.isoformat()

        first_release = self.first_release

        conversion: dict[str, Any] | Unset = UNSET
        if not isinstance(self.conversion, Unset):
            conversion = self.conversion.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "commodity_id": commodity_id,
                "type": type_,
                "frequency": frequency,
                "transform": transform,
                "count": count,
                "request_id": request_id,
            }
        )
        if unit is not UNSET:
            field_dict["unit"] = unit
        if price_basis is not UNSET:
            field_dict["price_basis"] = price_basis
        if attribution is not UNSET:
            field_dict["attribution"] = attribution
        if source is not UNSET:
            field_dict["source"] = source
        if last_updated is not UNSET:
            field_dict["last_updated"] = last_updated
        if as_of is not UNSET:
            field_dict["as_of"] = as_of
        if first_release is not UNSET:
            field_dict["first_release"] = first_release
        if conversion is not UNSET:
            field_dict["conversion"] = conversion

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conversion import Conversion

        d = dict(src_dict)
        commodity_id = d.pop("commodity_id")

        type_ = SeriesType(d.pop("type"))

        frequency = Frequency(d.pop("frequency"))

        transform = Transform(d.pop("transform"))

        count = d.pop("count")

        request_id = d.pop("request_id")

        unit = d.pop("unit", UNSET)

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

        _as_of = d.pop("as_of", UNSET)
        as_of: datetime.datetime | Unset
        if isinstance(_as_of, Unset):
            as_of = UNSET
        else:
            as_of = datetime.datetime.fromisoformat(_as_of)

        first_release = d.pop("first_release", UNSET)

        _conversion = d.pop("conversion", UNSET)
        conversion: Conversion | Unset
        if isinstance(_conversion, Unset):
            conversion = UNSET
        else:
            conversion = Conversion.from_dict(_conversion)

        series_meta = cls(
            commodity_id=commodity_id,
            type_=type_,
            frequency=frequency,
            transform=transform,
            count=count,
            request_id=request_id,
            unit=unit,
            price_basis=price_basis,
            attribution=attribution,
            source=source,
            last_updated=last_updated,
            as_of=as_of,
            first_release=first_release,
            conversion=conversion,
        )

        return series_meta
