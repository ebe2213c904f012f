"""Typed errors: one class per kind of failure, each carrying the API's error fields."""

from __future__ import annotations

from typing import Any

import httpx


class CommodityDataError(Exception):
    """Base of every error this client raises."""


class APIConnectionError(CommodityDataError):
    """No answer from the API: a refused connection, a timeout, the call's deadline passed."""


class APIError(CommodityDataError):
    """The API answered with an error (the contract's error body, or what came instead of it).

    Attributes:
        status: the HTTP status code.
        code: the machine-readable error code (``invalid_parameter``, ``rate_limited``, ...).
        message: the API's explanation.
        param: the query or path parameter at fault, when one is (400s).
        request_id: the answer's request id (quote it when reporting a problem).
        doc_url: where the error code is documented.
        retry_after: seconds the API asked to wait (429), else None.
        headers: the answer's headers.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        request_id: str | None = None,
        doc_url: str | None = None,
        retry_after: float | None = None,
        headers: httpx.Headers | None = None,
    ) -> None:
        detail = f"{status} {code}: {message}"
        if param is not None:
            detail += f" (param: {param})"
        if request_id is not None:
            detail += f" [request_id {request_id}]"
        super().__init__(detail)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.request_id = request_id
        self.doc_url = doc_url
        self.retry_after = retry_after
        self.headers = headers if headers is not None else httpx.Headers()


class BadRequestError(APIError):
    """400: a parameter is invalid (see ``param``)."""


class AuthenticationError(APIError):
    """401: the key is missing, unknown or revoked."""


class PermissionDeniedError(APIError):
    """403: the plan does not include this (``forbidden``) or this much history (``historical_limit``)."""


class NotFoundError(APIError):
    """404: no such commodity, series or path."""


class RateLimitError(APIError):
    """429 after the retries allowed: ``retry_after`` says how long the API asked to wait."""


class ServerError(APIError):
    """5xx: the service failed or is unavailable."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitError,
}


def retry_after_of(headers: httpx.Headers) -> float | None:
    """Retry-After in seconds (the API sends delta-seconds), or None when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def error_from_response(response: httpx.Response) -> APIError:
    """The typed error of a non-2xx answer, from the contract's error body when there is one."""
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        pass
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        err = {}
    status = response.status_code
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else APIError)
    text = response.text[:200] if not err else ""
    return cls(
        status,
        str(err.get("code", "unknown_error")),
        str(err.get("message") or text or response.reason_phrase or "no message"),
        param=err.get("param"),
        request_id=err.get("request_id") or response.headers.get("x-request-id"),
        doc_url=err.get("doc_url"),
        retry_after=retry_after_of(response.headers),
        headers=response.headers,
    )
