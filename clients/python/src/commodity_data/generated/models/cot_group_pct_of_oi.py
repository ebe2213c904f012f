from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CotGroupPctOfOi")


@_attrs_define
class CotGroupPctOfOi:
    """A group's long and short as a percent of open interest: round(100 × value / open_interest, 1), half away from zero
    (as the CFTC % of OI columns, bar one published cell: docs/decisions.md). Can exceed 100 only if the source does.

        Attributes:
            long (float):
            short (float):
    """

    long: float
    short: float

    def to_dict(self) -> dict[str, Any]:
        long = self.long

        short = self.short

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "long": long,
                "short": short,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        long = d.pop("long")

        short = d.pop("short")

        cot_group_pct_of_oi = cls(
            long=long,
            short=short,
        )

        return cot_group_pct_of_oi
