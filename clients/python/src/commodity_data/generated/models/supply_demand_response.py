from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.supply_demand_figure import SupplyDemandFigure
    from ..models.supply_demand_meta import SupplyDemandMeta


T = TypeVar("T", bound="SupplyDemandResponse")


@_attrs_define
class SupplyDemandResponse:
    """
    Attributes:
        data (list[SupplyDemandFigure]):
        meta (SupplyDemandMeta): Pagination, the attribution and the point in time of a supply and demand answer.
    """

    data: list[SupplyDemandFigure]
    meta: SupplyDemandMeta

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        meta = self.meta.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
                "meta": meta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.supply_demand_figure import SupplyDemandFigure
        from ..models.supply_demand_meta import SupplyDemandMeta

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = SupplyDemandFigure.from_dict(data_item_data)

            data.append(data_item)

        meta = SupplyDemandMeta.from_dict(d.pop("meta"))

        supply_demand_response = cls(
            data=data,
            meta=meta,
        )

        return supply_demand_response
