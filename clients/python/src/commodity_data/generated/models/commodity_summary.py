from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.category import Category
from ..types import UNSET, Unset

T = TypeVar("T", bound="CommoditySummary")


@_attrs_define
class CommoditySummary:
    """A commodity as listed by GET /commodities.

    Attributes:
        id (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        name (str):
        category (Category): Commodity category.
        symbol (str | Unset):
        exchange (str | Unset):
        unit (str | Unset): Unit of price, shaped `<currency>/<unit>`, for example `USD/bbl`.
    """

    id: str
    name: str
    category: Category
    symbol: str | Unset = UNSET
    exchange: str | Unset = UNSET
    unit: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        category = self.category.value

        symbol = self.symbol

        exchange = self.exchange

        unit = self.unit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "name": name,
                "category": category,
            }
        )
        if symbol is not UNSET:
            field_dict["symbol"] = symbol
        if exchange is not UNSET:
            field_dict["exchange"] = exchange
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        category = Category(d.pop("category"))

        symbol = d.pop("symbol", UNSET)

        exchange = d.pop("exchange", UNSET)

        unit = d.pop("unit", UNSET)

        commodity_summary = cls(
            id=id,
            name=name,
            category=category,
            symbol=symbol,
            exchange=exchange,
            unit=unit,
        )

        return commodity_summary
