from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.error_code import ErrorCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorBodyError")


@_attrs_define
class ErrorBodyError:
    """
    Attributes:
        code (ErrorCode): Machine-readable error code; documented at doc_url.
        message (str):
        doc_url (str):
        request_id (str): Unique request identifier for support and debugging; also sent as X-Request-Id.
        param (str | Unset):
    """

    code: ErrorCode
    message: str
    doc_url: str
    request_id: str
    param: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message = self.message

        doc_url = self.doc_url

        request_id = self.request_id

        param = self.param

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "code": code,
                "message": message,
                "doc_url": doc_url,
                "request_id": request_id,
            }
        )
        if param is not UNSET:
            field_dict["param"] = param

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = ErrorCode(d.pop("code"))

        message = d.pop("message")

        doc_url = d.pop("doc_url")

        request_id = d.pop("request_id")

        param = d.pop("param", UNSET)

        error_body_error = cls(
            code=code,
            message=message,
            doc_url=doc_url,
            request_id=request_id,
            param=param,
        )

        return error_body_error
