from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.source_status import SourceStatus


T = TypeVar("T", bound="StatusResponseData")


@_attrs_define
class StatusResponseData:
    """
    Attributes:
        demo (bool): This deployment serves generated demonstration data (`npm start -- --demo`) where no official
            source covers a series; such numbers carry `source: "demo"`.
        sources (list[SourceStatus]):
    """

    demo: bool
    sources: list[SourceStatus]

    def to_dict(self) -> dict[str, Any]:
        demo = self.demo

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "demo": demo,
                "sources": sources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.source_status import SourceStatus

        d = dict(src_dict)
        demo = d.pop("demo")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = SourceStatus.from_dict(sources_item_data)

            sources.append(sources_item)

        status_response_data = cls(
            demo=demo,
            sources=sources,
        )

        return status_response_data
