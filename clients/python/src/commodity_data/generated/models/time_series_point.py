from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TimeSeriesPoint")


@_attrs_define
class TimeSeriesPoint:
    """One observation. value is the closing price, or the transformed value when a transform is applied;
    open/high/low/close/volume appear on untransformed price series only.

        Attributes:
            date (datetime.date): A calendar date, YYYY-MM-DD.
            value (float):
            open_ (float | Unset):
            high (float | Unset):
            low (float | Unset):
            close (float | Unset):
            volume (int | Unset):
    """

    date: datetime.date
    value: float
    open_: float | Unset = UNSET
    high: float | Unset = UNSET
    low: float | Unset = UNSET
    close: float | Unset = UNSET
    volume: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        value = self.value

        open_ = self.open_

        high = self.high

        low = self.low

        close = self.close

        volume = self.volume

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

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        value = d.pop("value")

        open_ = d.pop("open", UNSET)

        high = d.pop("high", UNSET)

        low = d.pop("low", UNSET)

        close = d.pop("close", UNSET)

        volume = d.pop("volume", UNSET)

        time_series_point = cls(
            date=date,
            value=value,
            open_=open_,
            high=high,
            low=low,
            close=close,
            volume=volume,
        )

        return time_series_point
