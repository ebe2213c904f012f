from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PositionGroup")


@_attrs_define
class PositionGroup:
    """Positions of a trader group without spreading. net = long - short.

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

        position_group = cls(
            long=long,
            short=short,
            net=net,
        )

        return position_group
