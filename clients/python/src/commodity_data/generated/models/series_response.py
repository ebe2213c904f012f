from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.series_meta import SeriesMeta
    from ..models.time_series_point import TimeSeriesPoint


T = TypeVar("T", bound="SeriesResponse")


@_attrs_define
class SeriesResponse:
    """
    Attributes:
        data (list[TimeSeriesPoint]):
        meta (SeriesMeta): Metadata of a series response.
    """

    data: list[TimeSeriesPoint]
    meta: SeriesMeta

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
        from ..models.series_meta import SeriesMeta
        from ..models.time_series_point import TimeSeriesPoint

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = TimeSeriesPoint.from_dict(data_item_data)

            data.append(data_item)

        meta = SeriesMeta.from_dict(d.pop("meta"))

        series_response = cls(
            data=data,
            meta=meta,
        )

        return series_response
