from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.series_revision import SeriesRevision


T = TypeVar("T", bound="TimeSeriesPoint")


@_attrs_define
class TimeSeriesPoint:
    """One observation. value is the closing price, or the transformed value when a transform is applied;
    open/high/low/close/volume appear on untransformed price series only.

        Attributes:
            date (datetime.date): A calendar date, YYYY-MM-DD.
            value (float | None): The closing price, or the transformed value. null only with currency: the point had no
                exchange rate (meta.conversion.currency.missing counts them).
            open_ (float | Unset):
            high (float | Unset):
            low (float | Unset):
            close (float | Unset):
            volume (int | Unset):
            fx_rate (float | Unset): With currency: the rate this point was converted with (units of the target currency per
                unit of the source's; through the euro cross when neither is the euro). Absent when the value is null.
            fx_rate_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
            published_at (datetime.datetime | Unset): When the source published this version (RFC 3339): the release that
                carried it, from the source when it says (the Pink Sheet's "Updated on", EIA and NASS release fields) or from
                the release calendar (published_at_estimated). A resampled or transformed point carries the latest of the
                observations it comes from.
            first_seen_at (datetime.datetime | Unset): When this service first ingested that release (RFC 3339).
            published_at_estimated (bool | Unset): Present (true) when published_at is estimated (a release calendar, or the
                ingest time) rather than stated by the source.
            revisions (list[SeriesRevision] | Unset): With include=revisions: the versions of this observation before the
                one shown, oldest first (empty when it was never revised; with as_of, those published by then).
    """

    date: datetime.date
    value: float | None
    open_: float | Unset = UNSET
    high: float | Unset = UNSET
    low: float | Unset = UNSET
    close: float | Unset = UNSET
    volume: int | Unset = UNSET
    fx_rate: float | Unset = UNSET
    fx_rate_date: datetime.date | Unset = UNSET
    published_at: datetime.datetime | Unset = UNSET
    first_seen_at: datetime.datetime | Unset = UNSET
    published_at_estimated: bool | Unset = UNSET
    revisions: list[SeriesRevision] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        value: float | None
        value = self.value

        open_ = self.open_

        high = self.high

        low = self.low

        close = self.close

        volume = self.volume

        fx_rate = self.fx_rate

        fx_rate_date: str | Unset = UNSET
        if not isinstance(self.fx_rate_date, Unset):
            fx_rate_date = self.fx_rate_date.isoformat()

        published_at: str | Unset = UNSET
        if not isinstance(self.published_at, Unset):
            published_at = self.published_at.isoformat()

        first_seen_at: str | Unset = UNSET
        if not isinstance(self.first_seen_at, Unset):
            first_seen_at = self.first_seen_at.isoformat()

        published_at_estimated = self.published_at_estimated

        revisions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.revisions, Unset):
            revisions = []
            for revisions_item_data in self.revisions:
                revisions_item = revisions_item_data.to_dict()
                revisions.append(revisions_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "date": date,
                "value": value,
            }
        )
        if open_ is not UNSET:
            field_dict["open"] = open_
        if high is not UNSET:
            field_dict["high"] = high
        if low is not UNSET:
            field_dict["low"] = low
        if close is not UNSET:
            field_dict["close"] = close
        if volume is not UNSET:
            field_dict["volume"] = volume
        if fx_rate is not UNSET:
            field_dict["fx_rate"] = fx_rate
        if fx_rate_date is not UNSET:
            field_dict["fx_rate_date"] = fx_rate_date
        if published_at is not UNSET:
            field_dict["published_at"] = published_at
        if first_seen_at is not UNSET:
            field_dict["first_seen_at"] = first_seen_at
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated
        if revisions is not UNSET:
            field_dict["revisions"] = revisions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.series_revision import SeriesRevision

        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        def _parse_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        value = _parse_value(d.pop("value"))

        open_ = d.pop("open", UNSET)

        high = d.pop("high", UNSET)

        low = d.pop("low", UNSET)

        close = d.pop("close", UNSET)

        volume = d.pop("volume", UNSET)

        fx_rate = d.pop("fx_rate", UNSET)

        _fx_rate_date = d.pop("fx_rate_date", UNSET)
        fx_rate_date: datetime.date | Unset
        if isinstance(_fx_rate_date, Unset):
            fx_rate_date = UNSET
        else:
            fx_rate_date = datetime.date.fromisoformat(_fx_rate_date)

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

        _revisions = d.pop("revisions", UNSET)
        revisions: list[SeriesRevision] | Unset = UNSET
        if _revisions is not UNSET:
            revisions = []
            for revisions_item_data in _revisions:
                revisions_item = SeriesRevision.from_dict(revisions_item_data)

                revisions.append(revisions_item)

        time_series_point = cls(
            date=date,
            value=value,
            open_=open_,
            high=high,
            low=low,
            close=close,
            volume=volume,
            fx_rate=fx_rate,
            fx_rate_date=fx_rate_date,
            published_at=published_at,
            first_seen_at=first_seen_at,
            published_at_estimated=published_at_estimated,
            revisions=revisions,
        )

        return time_series_point
