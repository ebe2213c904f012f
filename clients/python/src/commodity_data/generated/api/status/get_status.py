from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.status_response import StatusResponse
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/status",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | StatusResponse | None:
    if response.status_code == 200:
        response_200 = StatusResponse.from_dict(response.json())

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
) -> Response[ErrorBody | StatusResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorBody | StatusResponse]:
    """Source freshness

     Per official source (cftc, eia, nass, ams, worldbank, wasde, ecb): the last successful sync, the
    newest data date, the last release that should be in by now and the next scheduled one
    (America/New_York, federal holiday shifts included), and whether the source is late. Public: no API
    key, not counted against any rate window; cacheable for 60 s.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | StatusResponse]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorBody | StatusResponse | None:
    """Source freshness

     Per official source (cftc, eia, nass, ams, worldbank, wasde, ecb): the last successful sync, the
    newest data date, the last release that should be in by now and the next scheduled one
    (America/New_York, federal holiday shifts included), and whether the source is late. Public: no API
    key, not counted against any rate window; cacheable for 60 s.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | StatusResponse
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorBody | StatusResponse]:
    """Source freshness

     Per official source (cftc, eia, nass, ams, worldbank, wasde, ecb): the last successful sync, the
    newest data date, the last release that should be in by now and the next scheduled one
    (America/New_York, federal holiday shifts included), and whether the source is late. Public: no API
    key, not counted against any rate window; cacheable for 60 s.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | StatusResponse]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorBody | StatusResponse | None:
    """Source freshness

     Per official source (cftc, eia, nass, ams, worldbank, wasde, ecb): the last successful sync, the
    newest data date, the last release that should be in by now and the next scheduled one
    (America/New_York, federal holiday shifts included), and whether the source is late. Public: no API
    key, not counted against any rate window; cacheable for 60 s.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | StatusResponse
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
