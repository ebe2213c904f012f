from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.category import Category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.commodity_identifiers import CommodityIdentifiers
    from ..models.series_descriptor import SeriesDescriptor


T = TypeVar("T", bound="CommodityDetail")


@_attrs_define
class CommodityDetail:
    """A commodity with contract details and every series it offers.

    Attributes:
        id (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        name (str):
        category (Category): Commodity category.
        symbol (str | Unset):
        exchange (str | Unset):
        unit (str | Unset): Unit of price, shaped `<currency>/<unit>`, for example `USD/bbl`.
        description (str | Unset):
        contract_size (str | Unset):
        tick_size (float | Unset):
        available_series (list[SeriesDescriptor] | Unset):
        identifiers (CommodityIdentifiers | Unset): The commodity's identifiers at its official sources, so any number
            can be checked against the source a `source` field names.
        price_note (str | Unset): Present when the commodity has no price series because no free official source
            publishes one, saying why and what comes closest.
    """

    id: str
    name: str
    category: Category
    symbol: str | Unset = UNSET
    exchange: str | Unset = UNSET
    unit: str | Unset = UNSET
    description: str | Unset = UNSET
    contract_size: str | Unset = UNSET
    tick_size: float | Unset = UNSET
    available_series: list[SeriesDescriptor] | Unset = UNSET
    identifiers: CommodityIdentifiers | Unset = UNSET
    price_note: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        category = self.category.value

        symbol = self.symbol

        exchange = self.exchange

        unit = self.unit

        description = self.description

        contract_size = self.contract_size

        tick_size = self.tick_size

        available_series: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.available_series, Unset):
            available_series = []
            for available_series_item_data in self.available_series:
                available_series_item = available_series_item_data.to_dict()
                available_series.append(available_series_item)

        identifiers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.identifiers, Unset):
            identifiers = self.identifiers.to_dict()

        price_note = self.price_note

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
        if description is not UNSET:
            field_dict["description"] = description
        if contract_size is not UNSET:
            field_dict["contract_size"] = contract_size
        if tick_size is not UNSET:
            field_dict["tick_size"] = tick_size
        if available_series is not UNSET:
            field_dict["available_series"] = available_series
        if identifiers is not UNSET:
            field_dict["identifiers"] = identifiers
        if price_note is not UNSET:
            field_dict["price_note"] = price_note

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.commodity_identifiers import CommodityIdentifiers
        from ..models.series_descriptor import SeriesDescriptor

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        category = Category(d.pop("category"))

        symbol = d.pop("symbol", UNSET)

        exchange = d.pop("exchange", UNSET)

        unit = d.pop("unit", UNSET)

        description = d.pop("description", UNSET)

        contract_size = d.pop("contract_size", UNSET)

        tick_size = d.pop("tick_size", UNSET)

        _available_series = d.pop("available_series", UNSET)
        available_series: list[SeriesDescriptor] | Unset = UNSET
        if _available_series is not UNSET:
            available_series = []
            for available_series_item_data in _available_series:
                available_series_item = SeriesDescriptor.from_dict(
                    available_series_item_data
                )

                available_series.append(available_series_item)

        _identifiers = d.pop("identifiers", UNSET)
        identifiers: CommodityIdentifiers | Unset
        if isinstance(_identifiers, Unset):
            identifiers = UNSET
        else:
            identifiers = CommodityIdentifiers.from_dict(_identifiers)

        price_note = d.pop("price_note", UNSET)

        commodity_detail = cls(
            id=id,
            name=name,
            category=category,
            symbol=symbol,
            exchange=exchange,
            unit=unit,
            description=description,
            contract_size=contract_size,
            tick_size=tick_size,
            available_series=available_series,
            identifiers=identifiers,
            price_note=price_note,
        )

        return commodity_detail
