from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.commodity_summary import CommoditySummary
    from ..models.pagination_meta import PaginationMeta


T = TypeVar("T", bound="CommodityListResponse")


@_attrs_define
class CommodityListResponse:
    """
    Attributes:
        data (list[CommoditySummary]):
        meta (PaginationMeta): Pagination of a list response. total_pages = ceil(total / per_page).
    """

    data: list[CommoditySummary]
    meta: PaginationMeta

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
        from ..models.commodity_summary import CommoditySummary
        from ..models.pagination_meta import PaginationMeta

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = CommoditySummary.from_dict(data_item_data)

            data.append(data_item)

        meta = PaginationMeta.from_dict(d.pop("meta"))

        commodity_list_response = cls(
            data=data,
            meta=meta,
        )

        return commodity_list_response
