from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="BulkListResponseMeta")


@_attrs_define
class BulkListResponseMeta:
    """
    Attributes:
        generated_at (datetime.datetime | None): When the files were generated; null before the first run.
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
    """

    generated_at: datetime.datetime | None
    request_id: str

    def to_dict(self) -> dict[str, Any]:
        generated_at: None | str
        if isinstance(self.generated_at, datetime.datetime):
            generated_at = self.generated_at.isoformat()
        else:
            generated_at = self.generated_at

        request_id = self.request_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "generated_at": generated_at,
                "request_id": request_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_generated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                generated_at_type_0 = datetime.datetime.fromisoformat(data)

                return generated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        generated_at = _parse_generated_at(d.pop("generated_at"))

        request_id = d.pop("request_id")

        bulk_list_response_meta = cls(
            generated_at=generated_at,
            request_id=request_id,
        )

        return bulk_list_response_meta
