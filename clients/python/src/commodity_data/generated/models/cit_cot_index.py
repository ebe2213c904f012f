from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="CitCotIndex")


@_attrs_define
class CitCotIndex:
    """Present with include=cot_index when the commodity has at least index_weeks reports in this format up to and
    including this one (absent before). For each group: (net - min) / (max - min) × 100 over the group's net in those
    index_weeks reports, rounded to one decimal half away from zero; null when max = min (every net in the window is the
    same). Example: nets 10, 30, 20 with index_weeks 3 → (20 - 10) / (30 - 10) × 100 = 50.

        Attributes:
            commercial (float | None):
            non_commercial (float | None):
            index_traders (float | None):
            non_reportable (float | None):
    """

    commercial: float | None
    non_commercial: float | None
    index_traders: float | None
    non_reportable: float | None

    def to_dict(self) -> dict[str, Any]:
        commercial: float | None
        commercial = self.commercial

        non_commercial: float | None
        non_commercial = self.non_commercial

        index_traders: float | None
        index_traders = self.index_traders

        non_reportable: float | None
        non_reportable = self.non_reportable

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "commercial": commercial,
                "non_commercial": non_commercial,
                "index_traders": index_traders,
                "non_reportable": non_reportable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_commercial(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        commercial = _parse_commercial(d.pop("commercial"))

        def _parse_non_commercial(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        non_commercial = _parse_non_commercial(d.pop("non_commercial"))

        def _parse_index_traders(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        index_traders = _parse_index_traders(d.pop("index_traders"))

        def _parse_non_reportable(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        non_reportable = _parse_non_reportable(d.pop("non_reportable"))

        cit_cot_index = cls(
            commercial=commercial,
            non_commercial=non_commercial,
            index_traders=index_traders,
            non_reportable=non_reportable,
        )

        return cit_cot_index
