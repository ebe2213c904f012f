from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConversionTo")


@_attrs_define
class ConversionTo:
    """
    Attributes:
        unit (str | Unset): The series' unit (the answer's meta.unit).
        currency (str | Unset): The currency of a price (absent on a quantity).
    """

    unit: str | Unset = UNSET
    currency: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        unit = self.unit

        currency = self.currency

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if unit is not UNSET:
            field_dict["unit"] = unit
        if currency is not UNSET:
            field_dict["currency"] = currency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        unit = d.pop("unit", UNSET)

        currency = d.pop("currency", UNSET)

        conversion_to = cls(
            unit=unit,
            currency=currency,
        )

        return conversion_to
