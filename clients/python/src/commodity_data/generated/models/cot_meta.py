from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CotMeta")


@_attrs_define
class CotMeta:
    """Pagination of the COT reports (total_pages = ceil(total / per_page)) and, with as_of, its instant.

    Attributes:
        page (int):
        per_page (int):
        total (int):
        total_pages (int):
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
        as_of (datetime.datetime | Unset): With as_of: the instant the answer is as of (RFC 3339, UTC).
    """

    page: int
    per_page: int
    total: int
    total_pages: int
    request_id: str
    as_of: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        page = self.page

        per_page = self.per_page

        total = self.total

        total_pages = self.total_pages

        request_id = self.request_id

        as_of: str | Unset = UNSET
        if not isinstance(self.as_of, Unset):
            as_of = self.as_of.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "page": page,
                "per_page": per_page,
                "total": total,
                "total_pages": total_pages,
                "request_id": request_id,
            }
        )
        if as_of is not UNSET:
            field_dict["as_of"] = as_of

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        page = d.pop("page")

        per_page = d.pop("per_page")

        total = d.pop("total")

        total_pages = d.pop("total_pages")

        request_id = d.pop("request_id")

        _as_of = d.pop("as_of", UNSET)
        as_of: datetime.datetime | Unset
        if isinstance(_as_of, Unset):
            as_of = UNSET
        else:
            as_of = datetime.datetime.fromisoformat(_as_of)

        cot_meta = cls(
            page=page,
            per_page=per_page,
            total=total,
            total_pages=total_pages,
            request_id=request_id,
            as_of=as_of,
        )

        return cot_meta
