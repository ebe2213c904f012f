from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.error_body_error import ErrorBodyError


T = TypeVar("T", bound="ErrorBody")


@_attrs_define
class ErrorBody:
    """The body of every error response.

    Attributes:
        error (ErrorBodyError):
    """

    error: ErrorBodyError

    def to_dict(self) -> dict[str, Any]:
        error = self.error.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_body_error import ErrorBodyError

        d = dict(src_dict)
        error = ErrorBodyError.from_dict(d.pop("error"))

        error_body = cls(
            error=error,
        )

        return error_body
