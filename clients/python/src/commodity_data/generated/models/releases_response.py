from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.release_record import ReleaseRecord
    from ..models.releases_response_meta import ReleasesResponseMeta


T = TypeVar("T", bound="ReleasesResponse")


@_attrs_define
class ReleasesResponse:
    """A dataset's releases in a window, against the agency's calendar.

    Attributes:
        data (list[ReleaseRecord]): Oldest first.
        meta (ReleasesResponseMeta):
    """

    data: list[ReleaseRecord]
    meta: ReleasesResponseMeta

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
        from ..models.release_record import ReleaseRecord
        from ..models.releases_response_meta import ReleasesResponseMeta

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = ReleaseRecord.from_dict(data_item_data)

            data.append(data_item)

        meta = ReleasesResponseMeta.from_dict(d.pop("meta"))

        releases_response = cls(
            data=data,
            meta=meta,
        )

        return releases_response
