from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.status_response_data import StatusResponseData
    from ..models.status_response_links import StatusResponseLinks
    from ..models.status_response_meta import StatusResponseMeta


T = TypeVar("T", bound="StatusResponse")


@_attrs_define
class StatusResponse:
    """Per official source: the last successful sync, the newest data, the next release, and lateness.

    Attributes:
        data (StatusResponseData):
        meta (StatusResponseMeta):
        links (StatusResponseLinks | Unset): Where the per-dataset conditions and releases are (absolute URLs).
    """

    data: StatusResponseData
    meta: StatusResponseMeta
    links: StatusResponseLinks | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        meta = self.meta.to_dict()

        links: dict[str, Any] | Unset = UNSET
        if not isinstance(self.links, Unset):
            links = self.links.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
                "meta": meta,
            }
        )
        if links is not UNSET:
            field_dict["links"] = links

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.status_response_data import StatusResponseData
        from ..models.status_response_links import StatusResponseLinks
        from ..models.status_response_meta import StatusResponseMeta

        d = dict(src_dict)
        data = StatusResponseData.from_dict(d.pop("data"))

        meta = StatusResponseMeta.from_dict(d.pop("meta"))

        _links = d.pop("links", UNSET)
        links: StatusResponseLinks | Unset
        if isinstance(_links, Unset):
            links = UNSET
        else:
            links = StatusResponseLinks.from_dict(_links)

        status_response = cls(
            data=data,
            meta=meta,
            links=links,
        )

        return status_response
