from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.dataset_id import DatasetId
from ..models.incident_state import IncidentState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.incident_update import IncidentUpdate


T = TypeVar("T", bound="Incident")


@_attrs_define
class Incident:
    """An incident written by an operator.

    Attributes:
        id (str):
        title (str):
        state (IncidentState): Its latest state.
        datasets (list[DatasetId]): The datasets it affects (empty: the whole service).
        started_at (datetime.datetime):
        updates (list[IncidentUpdate]): Oldest first.
        resolved_at (datetime.datetime | Unset): When it was resolved; absent while open.
    """

    id: str
    title: str
    state: IncidentState
    datasets: list[DatasetId]
    started_at: datetime.datetime
    updates: list[IncidentUpdate]
    resolved_at: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        title = self.title

        state = self.state.value

        datasets = []
        for datasets_item_data in self.datasets:
            datasets_item = datasets_item_data.value
            datasets.append(datasets_item)

        started_at = self.started_at.isoformat()

        updates = []
        for updates_item_data in self.updates:
            updates_item = updates_item_data.to_dict()
            updates.append(updates_item)

        resolved_at: str | Unset = UNSET
        if not isinstance(self.resolved_at, Unset):
            resolved_at = self.resolved_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "title": title,
                "state": state,
                "datasets": datasets,
                "started_at": started_at,
                "updates": updates,
            }
        )
        if resolved_at is not UNSET:
            field_dict["resolved_at"] = resolved_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.incident_update import IncidentUpdate

        d = dict(src_dict)
        id = d.pop("id")

        title = d.pop("title")

        state = IncidentState(d.pop("state"))

        datasets = []
        _datasets = d.pop("datasets")
        for datasets_item_data in _datasets:
            datasets_item = DatasetId(datasets_item_data)

            datasets.append(datasets_item)

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        updates = []
        _updates = d.pop("updates")
        for updates_item_data in _updates:
            updates_item = IncidentUpdate.from_dict(updates_item_data)

            updates.append(updates_item)

        _resolved_at = d.pop("resolved_at", UNSET)
        resolved_at: datetime.datetime | Unset
        if isinstance(_resolved_at, Unset):
            resolved_at = UNSET
        else:
            resolved_at = datetime.datetime.fromisoformat(_resolved_at)

        incident = cls(
            id=id,
            title=title,
            state=state,
            datasets=datasets,
            started_at=started_at,
            updates=updates,
            resolved_at=resolved_at,
        )

        return incident
