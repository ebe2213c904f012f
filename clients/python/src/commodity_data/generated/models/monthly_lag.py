from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="MonthlyLag")


@_attrs_define
class MonthlyLag:
    """A month's lag from the agency's scheduled release to the first time this service served it.

    Attributes:
        month (str):
        releases (int): Releases scheduled that month and served live (not backfilled).
        p50_lag_seconds (float | None): Median lag from scheduled time to first served; null without releases.
        p95_lag_seconds (float | None):
    """

    month: str
    releases: int
    p50_lag_seconds: float | None
    p95_lag_seconds: float | None

    def to_dict(self) -> dict[str, Any]:
        month = self.month

        releases = self.releases

        p50_lag_seconds: float | None
        p50_lag_seconds = self.p50_lag_seconds

        p95_lag_seconds: float | None
        p95_lag_seconds = self.p95_lag_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "month": month,
                "releases": releases,
                "p50_lag_seconds": p50_lag_seconds,
                "p95_lag_seconds": p95_lag_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        month = d.pop("month")

        releases = d.pop("releases")

        def _parse_p50_lag_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p50_lag_seconds = _parse_p50_lag_seconds(d.pop("p50_lag_seconds"))

        def _parse_p95_lag_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p95_lag_seconds = _parse_p95_lag_seconds(d.pop("p95_lag_seconds"))

        monthly_lag = cls(
            month=month,
            releases=releases,
            p50_lag_seconds=p50_lag_seconds,
            p95_lag_seconds=p95_lag_seconds,
        )

        return monthly_lag
