from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consistency_day import ConsistencyDay
    from ..models.source_status import SourceStatus


T = TypeVar("T", bound="StatusResponseData")


@_attrs_define
class StatusResponseData:
    """
    Attributes:
        demo (bool): This deployment serves generated demonstration data (`npm start -- --demo`) where no official
            source covers a series; such numbers carry `source: "demo"`.
        sources (list[SourceStatus]):
        consistency (list[ConsistencyDay] | Unset): The COT reports and supply and demand balance sheets that failed a
            consistency check, per dataset and date, newest first, over the last 366 days (absent when none did). A failing
            report is still stored and served, naming the checks in its failed_checks.
    """

    demo: bool
    sources: list[SourceStatus]
    consistency: list[ConsistencyDay] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        demo = self.demo

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        consistency: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.consistency, Unset):
            consistency = []
            for consistency_item_data in self.consistency:
                consistency_item = consistency_item_data.to_dict()
                consistency.append(consistency_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "demo": demo,
                "sources": sources,
            }
        )
        if consistency is not UNSET:
            field_dict["consistency"] = consistency

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.consistency_day import ConsistencyDay
        from ..models.source_status import SourceStatus

        d = dict(src_dict)
        demo = d.pop("demo")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = SourceStatus.from_dict(sources_item_data)

            sources.append(sources_item)

        _consistency = d.pop("consistency", UNSET)
        consistency: list[ConsistencyDay] | Unset = UNSET
        if _consistency is not UNSET:
            consistency = []
            for consistency_item_data in _consistency:
                consistency_item = ConsistencyDay.from_dict(consistency_item_data)

                consistency.append(consistency_item)

        status_response_data = cls(
            demo=demo,
            sources=sources,
            consistency=consistency,
        )

        return status_response_data
