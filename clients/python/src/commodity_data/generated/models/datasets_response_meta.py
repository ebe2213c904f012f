from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DatasetsResponseMeta")


@_attrs_define
class DatasetsResponseMeta:
    """
    Attributes:
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
        generated_at (datetime.datetime):
    """

    request_id: str
    generated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        generated_at = self.generated_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request_id": request_id,
                "generated_at": generated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        request_id = d.pop("request_id")

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        datasets_response_meta = cls(
            request_id=request_id,
            generated_at=generated_at,
        )

        return datasets_response_meta
