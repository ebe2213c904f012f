from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SeriesRevision")


@_attrs_define
class SeriesRevision:
    """An earlier version of an observation (include=revisions), with the release that published it.

    Attributes:
        value (float):
        open_ (float | Unset):
        high (float | Unset):
        low (float | Unset):
        close (float | Unset):
        volume (int | Unset):
        published_at (datetime.datetime | Unset): When the source published this version (RFC 3339): the release that
            carried it, from the source when it says (the Pink Sheet's "Updated on", EIA and NASS release fields) or from
            the release calendar (published_at_estimated). A resampled or transformed point carries the latest of the
            observations it comes from.
        first_seen_at (datetime.datetime | Unset): When this service first ingested that release (RFC 3339).
        published_at_estimated (bool | Unset): Present (true) when published_at is estimated (a release calendar, or the
            ingest time) rather than stated by the source.
    """

    value: float
    open_: float | Unset = UNSET
    high: float | Unset = UNSET
    low: float | Unset = UNSET
    close: float | Unset = UNSET
    volume: int | Unset = UNSET
    published_at: datetime.datetime | Unset = UNSET
    first_seen_at: datetime.datetime | Unset = UNSET
    published_at_estimated: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        value = self.value

        open_ = self.open_

        high = self.high

        low = self.low

        close = self.close

        volume = self.volume

        published_at: str | Unset = UNSET
        if not isinstance(self.published_at, Unset):
            published_at = self.published_at.isoformat()

        first_seen_at: str | Unset = UNSET
        if not isinstance(self.first_seen_at, Unset):
            first_seen_at = self.first_seen_at.isoformat()

        published_at_estimated = self.published_at_estimated

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
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
        if published_at is not UNSET:
            field_dict["published_at"] = published_at
        if first_seen_at is not UNSET:
            field_dict["first_seen_at"] = first_seen_at
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        value = d.pop("value")

        open_ = d.pop("open", UNSET)

        high = d.pop("high", UNSET)

        low = d.pop("low", UNSET)

        close = d.pop("close", UNSET)

        volume = d.pop("volume", UNSET)

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

        series_revision = cls(
            value=value,
            open_=open_,
            high=high,
            low=low,
            close=close,
            volume=volume,
            published_at=published_at,
            first_seen_at=first_seen_at,
            published_at_estimated=published_at_estimated,
        )

        return series_revision
