from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bulk_list_response import BulkListResponse
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(if_modified_since, Unset):
        headers["If-Modified-Since"] = if_modified_since

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/bulk",
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | BulkListResponse | ErrorBody | None:
    if response.status_code == 200:
        response_200 = BulkListResponse.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 406:
        response_406 = ErrorBody.from_dict(response.json())

        return response_406

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 414:
        response_414 = ErrorBody.from_dict(response.json())

        return response_414

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | BulkListResponse | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | BulkListResponse | ErrorBody]:
    """List bulk files

     Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the
    licence and attribution of its sources, and the plans that may download it. Files are regenerated
    after each sync; a dataset without data has no file. Served as application/json only (Accept must
    allow it, else 406). Conditional requests: If-None-Match / If-Modified-Since get a 304 without a
    body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BulkListResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | BulkListResponse | ErrorBody | None:
    """List bulk files

     Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the
    licence and attribution of its sources, and the plans that may download it. Files are regenerated
    after each sync; a dataset without data has no file. Served as application/json only (Accept must
    allow it, else 406). Conditional requests: If-None-Match / If-Modified-Since get a 304 without a
    body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BulkListResponse | ErrorBody
    """

    return sync_detailed(
        client=client,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | BulkListResponse | ErrorBody]:
    """List bulk files

     Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the
    licence and attribution of its sources, and the plans that may download it. Files are regenerated
    after each sync; a dataset without data has no file. Served as application/json only (Accept must
    allow it, else 406). Conditional requests: If-None-Match / If-Modified-Since get a 304 without a
    body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BulkListResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | BulkListResponse | ErrorBody | None:
    """List bulk files

     Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the
    licence and attribution of its sources, and the plans that may download it. Files are regenerated
    after each sync; a dataset without data has no file. Served as application/json only (Accept must
    allow it, else 406). Conditional requests: If-None-Match / If-Modified-Since get a 304 without a
    body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BulkListResponse | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
