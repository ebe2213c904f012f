from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReleaseRecordShifted")


@_attrs_define
class ReleaseRecordShifted:
    """
    Attributes:
        from_ (datetime.datetime): Its usual time before the move.
        reason (str):
    """

    from_: datetime.datetime
    reason: str

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        reason = d.pop("reason")

        release_record_shifted = cls(
            from_=from_,
            reason=reason,
        )

        return release_record_shifted
