from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.condition_reason_kind import ConditionReasonKind

T = TypeVar("T", bound="ConditionReason")


@_attrs_define
class ConditionReason:
    """Why a day's condition is what it is.

    Attributes:
        kind (ConditionReasonKind):
        message (str):
    """

    kind: ConditionReasonKind
    message: str

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = ConditionReasonKind(d.pop("kind"))

        message = d.pop("message")

        condition_reason = cls(
            kind=kind,
            message=message,
        )

        return condition_reason
