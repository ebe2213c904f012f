from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.datasets_response import DatasetsResponse
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/datasets",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DatasetsResponse | ErrorBody | None:
    if response.status_code == 200:
        response_200 = DatasetsResponse.from_dict(response.json())

        return response_200

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 414:
        response_414 = ErrorBody.from_dict(response.json())

        return response_414

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
) -> Response[DatasetsResponse | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[DatasetsResponse | ErrorBody]:
    """Dataset conditions and freshness

     Every dataset (16: one source's report kind each) with today's condition, its condition on each of
    the last 90 days and why, its last and next release against the agency's calendar, and the lag from
    scheduled release to first served, p50 and p95 per month. Also the incidents an operator wrote.
    Public: no API key, not counted against any rate window; cacheable for 60 s. The status page shows
    the same; `/datasets/feed` is its Atom feed of changes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetsResponse | ErrorBody]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> DatasetsResponse | ErrorBody | None:
    """Dataset conditions and freshness

     Every dataset (16: one source's report kind each) with today's condition, its condition on each of
    the last 90 days and why, its last and next release against the agency's calendar, and the lag from
    scheduled release to first served, p50 and p95 per month. Also the incidents an operator wrote.
    Public: no API key, not counted against any rate window; cacheable for 60 s. The status page shows
    the same; `/datasets/feed` is its Atom feed of changes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetsResponse | ErrorBody
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[DatasetsResponse | ErrorBody]:
    """Dataset conditions and freshness

     Every dataset (16: one source's report kind each) with today's condition, its condition on each of
    the last 90 days and why, its last and next release against the agency's calendar, and the lag from
    scheduled release to first served, p50 and p95 per month. Also the incidents an operator wrote.
    Public: no API key, not counted against any rate window; cacheable for 60 s. The status page shows
    the same; `/datasets/feed` is its Atom feed of changes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetsResponse | ErrorBody]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> DatasetsResponse | ErrorBody | None:
    """Dataset conditions and freshness

     Every dataset (16: one source's report kind each) with today's condition, its condition on each of
    the last 90 days and why, its last and next release against the agency's calendar, and the lag from
    scheduled release to first served, p50 and p95 per month. Also the incidents an operator wrote.
    Public: no API key, not counted against any rate window; cacheable for 60 s. The status page shows
    the same; `/datasets/feed` is its Atom feed of changes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetsResponse | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
