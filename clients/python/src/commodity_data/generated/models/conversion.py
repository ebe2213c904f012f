from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversion_from import ConversionFrom
    from ..models.conversion_to import ConversionTo
    from ..models.currency_conversion import CurrencyConversion
    from ..models.unit_conversion import UnitConversion


T = TypeVar("T", bound="Conversion")


@_attrs_define
class Conversion:
    """With currency or unit: the working of the conversion, from what the source published to what is served. Conversion
    happens on the observations themselves, before resampling and transforms.

        Attributes:
            from_ (ConversionFrom):
            to (ConversionTo):
            unit (UnitConversion | Unset): The physical (and cents-to-units) part of a conversion.
            currency (CurrencyConversion | Unset): The exchange-rate part of a conversion.
    """

    from_: ConversionFrom
    to: ConversionTo
    unit: UnitConversion | Unset = UNSET
    currency: CurrencyConversion | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.to_dict()

        to = self.to.to_dict()

        unit: dict[str, Any] | Unset = UNSET
        if not isinstance(self.unit, Unset):
            unit = self.unit.to_dict()

        currency: dict[str, Any] | Unset = UNSET
        if not isinstance(self.currency, Unset):
            currency = self.currency.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )
        if unit is not UNSET:
            field_dict["unit"] = unit
        if currency is not UNSET:
            field_dict["currency"] = currency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conversion_from import ConversionFrom
        from ..models.conversion_to import ConversionTo
        from ..models.currency_conversion import CurrencyConversion
        from ..models.unit_conversion import UnitConversion

        d = dict(src_dict)
        from_ = ConversionFrom.from_dict(d.pop("from"))

        to = ConversionTo.from_dict(d.pop("to"))

        _unit = d.pop("unit", UNSET)
        unit: UnitConversion | Unset
        if isinstance(_unit, Unset):
            unit = UNSET
        else:
            unit = UnitConversion.from_dict(_unit)

        _currency = d.pop("currency", UNSET)
        currency: CurrencyConversion | Unset
        if isinstance(_currency, Unset):
            currency = UNSET
        else:
            currency = CurrencyConversion.from_dict(_currency)

        conversion = cls(
            from_=from_,
            to=to,
            unit=unit,
            currency=currency,
        )

        return conversion
