from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UnitConversion")


@_attrs_define
class UnitConversion:
    """The physical (and cents-to-units) part of a conversion.

    Attributes:
        from_ (str):
        to (str):
        factor (float): Each value (and open/high/low/close) is multiplied by it.
        working (str): How the factor comes about, e.g. `1 t = 36.7437 bu of 60 lb (0.45359237 kg/lb)`.
    """

    from_: str
    to: str
    factor: float
    working: str

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        factor = self.factor

        working = self.working

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
                "factor": factor,
                "working": working,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        factor = d.pop("factor")

        working = d.pop("working")

        unit_conversion = cls(
            from_=from_,
            to=to,
            factor=factor,
            working=working,
        )

        return unit_conversion
