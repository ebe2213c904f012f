from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.commodity_detail import CommodityDetail
    from ..models.request_meta import RequestMeta


T = TypeVar("T", bound="CommodityDetailResponse")


@_attrs_define
class CommodityDetailResponse:
    """
    Attributes:
        data (CommodityDetail): A commodity with contract details and every series it offers.
        meta (RequestMeta): Metadata of a single-resource response.
    """

    data: CommodityDetail
    meta: RequestMeta

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

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
        from ..models.commodity_detail import CommodityDetail
        from ..models.request_meta import RequestMeta

        d = dict(src_dict)
        data = CommodityDetail.from_dict(d.pop("data"))

        meta = RequestMeta.from_dict(d.pop("meta"))

        commodity_detail_response = cls(
            data=data,
            meta=meta,
        )

        return commodity_detail_response
