from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CotGroupPctOfOiWithSpreading")


@_attrs_define
class CotGroupPctOfOiWithSpreading:
    """A group's long, short and spreading as a percent of open interest: round(100 × value / open_interest, 1), half away
    from zero (as the CFTC % of OI columns, bar one published cell: docs/decisions.md).

        Attributes:
            long (float):
            short (float):
            spreading (float):
    """

    long: float
    short: float
    spreading: float

    def to_dict(self) -> dict[str, Any]:
        long = self.long

        short = self.short

        spreading = self.spreading

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "long": long,
                "short": short,
                "spreading": spreading,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        long = d.pop("long")

        short = d.pop("short")

        spreading = d.pop("spreading")

        cot_group_pct_of_oi_with_spreading = cls(
            long=long,
            short=short,
            spreading=spreading,
        )

        return cot_group_pct_of_oi_with_spreading
