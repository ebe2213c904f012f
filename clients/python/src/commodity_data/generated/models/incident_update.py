from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.incident_update_state import IncidentUpdateState

T = TypeVar("T", bound="IncidentUpdate")


@_attrs_define
class IncidentUpdate:
    """One update of an incident, in the operator's words.

    Attributes:
        at (datetime.datetime): When the operator wrote it (RFC 3339).
        state (IncidentUpdateState):
        message (str):
    """

    at: datetime.datetime
    state: IncidentUpdateState
    message: str

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        state = self.state.value

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "state": state,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        state = IncidentUpdateState(d.pop("state"))

        message = d.pop("message")

        incident_update = cls(
            at=at,
            state=state,
            message=message,
        )

        return incident_update
