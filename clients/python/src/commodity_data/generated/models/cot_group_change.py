from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CotGroupChange")


@_attrs_define
class CotGroupChange:
    """Change of a group's long, short and net since the previous report (this minus previous).

    Attributes:
        long (int):
        short (int):
        net (int):
    """

    long: int
    short: int
    net: int

    def to_dict(self) -> dict[str, Any]:
        long = self.long

        short = self.short

        net = self.net

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "long": long,
                "short": short,
                "net": net,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        long = d.pop("long")

        short = d.pop("short")

        net = d.pop("net")

        cot_group_change = cls(
            long=long,
            short=short,
            net=net,
        )

        return cot_group_change
