from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.bulk_file import BulkFile
    from ..models.bulk_list_response_meta import BulkListResponseMeta


T = TypeVar("T", bound="BulkListResponse")


@_attrs_define
class BulkListResponse:
    """The bulk files and their manifest.

    Attributes:
        data (list[BulkFile]):
        meta (BulkListResponseMeta):
    """

    data: list[BulkFile]
    meta: BulkListResponseMeta

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
        from ..models.bulk_file import BulkFile
        from ..models.bulk_list_response_meta import BulkListResponseMeta

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = BulkFile.from_dict(data_item_data)

            data.append(data_item)

        meta = BulkListResponseMeta.from_dict(d.pop("meta"))

        bulk_list_response = cls(
            data=data,
            meta=meta,
        )

        return bulk_list_response
