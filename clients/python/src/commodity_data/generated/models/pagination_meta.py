from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PaginationMeta")


@_attrs_define
class PaginationMeta:
    """Pagination of a list response. total_pages = ceil(total / per_page).

    Attributes:
        page (int):
        per_page (int):
        total (int):
        total_pages (int):
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
    """

    page: int
    per_page: int
    total: int
    total_pages: int
    request_id: str

    def to_dict(self) -> dict[str, Any]:
        page = self.page

        per_page = self.per_page

        total = self.total

        total_pages = self.total_pages

        request_id = self.request_id

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

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        page = d.pop("page")

        per_page = d.pop("per_page")

        total = d.pop("total")

        total_pages = d.pop("total_pages")

        request_id = d.pop("request_id")

        pagination_meta = cls(
            page=page,
            per_page=per_page,
            total=total,
            total_pages=total_pages,
            request_id=request_id,
        )

        return pagination_meta
