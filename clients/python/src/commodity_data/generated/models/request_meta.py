from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RequestMeta")


@_attrs_define
class RequestMeta:
    """Metadata of a single-resource response.

    Attributes:
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
    """

    request_id: str

    def to_dict(self) -> dict[str, Any]:
        request_id = self.request_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request_id": request_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        request_id = d.pop("request_id")

        request_meta = cls(
            request_id=request_id,
        )

        return request_meta
