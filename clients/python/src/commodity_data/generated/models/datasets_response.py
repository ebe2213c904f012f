from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.dataset_summary import DatasetSummary
    from ..models.datasets_response_meta import DatasetsResponseMeta
    from ..models.incident import Incident


T = TypeVar("T", bound="DatasetsResponse")


@_attrs_define
class DatasetsResponse:
    """Every dataset with its condition over the last 90 days, and the incidents.

    Attributes:
        data (list[DatasetSummary]):
        incidents (list[Incident]): Incidents open or started in the last 90 days, newest first.
        meta (DatasetsResponseMeta):
    """

    data: list[DatasetSummary]
    incidents: list[Incident]
    meta: DatasetsResponseMeta

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        incidents = []
        for incidents_item_data in self.incidents:
            incidents_item = incidents_item_data.to_dict()
            incidents.append(incidents_item)

        meta = self.meta.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
                "incidents": incidents,
                "meta": meta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dataset_summary import DatasetSummary
        from ..models.datasets_response_meta import DatasetsResponseMeta
        from ..models.incident import Incident

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = DatasetSummary.from_dict(data_item_data)

            data.append(data_item)

        incidents = []
        _incidents = d.pop("incidents")
        for incidents_item_data in _incidents:
            incidents_item = Incident.from_dict(incidents_item_data)

            incidents.append(incidents_item)

        meta = DatasetsResponseMeta.from_dict(d.pop("meta"))

        datasets_response = cls(
            data=data,
            incidents=incidents,
            meta=meta,
        )

        return datasets_response
