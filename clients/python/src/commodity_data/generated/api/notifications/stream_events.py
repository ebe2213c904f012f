from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    commodities: str | Unset = UNSET,
    types: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id_header, Unset):
        headers["Last-Event-ID"] = last_event_id_header

    params: dict[str, Any] = {}

    params["commodities"] = commodities

    params["types"] = types

    params["last_event_id"] = last_event_id_query

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/events",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

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
) -> Response[ErrorBody | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    commodities: str | Unset = UNSET,
    types: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: str | Unset = UNSET,
) -> Response[ErrorBody | str]:
    """Change notifications (server-sent events)

     A `text/event-stream` that tells you when data changed: one event each time new series points or COT
    reports become readable through the API, filtered by `commodities` and `types`. Opening a stream
    counts as one request against the rate windows. Concurrent streams per account are limited by plan
    (free 1, professional 5, business 20, enterprise 100); one more is 429. After the headers: `retry:
    3000`, then events and a `: keep-alive` comment every 15 s. Each event is `id: <id>`, `event:
    series.updated` or `cot.updated`, `data: <Notification JSON>` (components: Notification). Reconnect
    with `Last-Event-ID: <the last id you received>` (or `last_event_id`) to receive every change after
    it that the server still keeps (the last 7 days at most); when it no longer keeps all of them the
    stream starts with `event: resync` (refetch what you follow). The server ends a stream with a final
    `event: error` whose data is the error body: `unauthorized` (the key was revoked), `forbidden` (the
    plan changed and no longer reads a COT format you asked for), `rate_limited` (the plan changed and
    allows fewer streams: the newest end) or `slow_consumer` (the client read too slowly: reconnect with
    Last-Event-ID).

    Args:
        commodities (str | Unset): Only these commodities: a comma-separated list of distinct
            commodity ids the catalog lists (at most 100; an id it does not list, or one listed twice,
            is a 400 naming commodities). Default: all.
        types (str | Unset): Only these series types or COT datasets (cot_legacy,
            cot_disaggregated, cot_legacy_combined, cot_disaggregated_combined, cot_cit), comma-
            separated. Default: every type the plan may read. Asking for a COT format the plan does
            not include is a 403; one listed twice is a 400 naming types.
        last_event_id_query (str | Unset): Resume after this event id, for clients that cannot
            send the Last-Event-ID header (the header wins when both are sent).
        last_event_id_header (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | str]
    """

    kwargs = _get_kwargs(
        commodities=commodities,
        types=types,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    commodities: str | Unset = UNSET,
    types: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: str | Unset = UNSET,
) -> ErrorBody | str | None:
    """Change notifications (server-sent events)

     A `text/event-stream` that tells you when data changed: one event each time new series points or COT
    reports become readable through the API, filtered by `commodities` and `types`. Opening a stream
    counts as one request against the rate windows. Concurrent streams per account are limited by plan
    (free 1, professional 5, business 20, enterprise 100); one more is 429. After the headers: `retry:
    3000`, then events and a `: keep-alive` comment every 15 s. Each event is `id: <id>`, `event:
    series.updated` or `cot.updated`, `data: <Notification JSON>` (components: Notification). Reconnect
    with `Last-Event-ID: <the last id you received>` (or `last_event_id`) to receive every change after
    it that the server still keeps (the last 7 days at most); when it no longer keeps all of them the
    stream starts with `event: resync` (refetch what you follow). The server ends a stream with a final
    `event: error` whose data is the error body: `unauthorized` (the key was revoked), `forbidden` (the
    plan changed and no longer reads a COT format you asked for), `rate_limited` (the plan changed and
    allows fewer streams: the newest end) or `slow_consumer` (the client read too slowly: reconnect with
    Last-Event-ID).

    Args:
        commodities (str | Unset): Only these commodities: a comma-separated list of distinct
            commodity ids the catalog lists (at most 100; an id it does not list, or one listed twice,
            is a 400 naming commodities). Default: all.
        types (str | Unset): Only these series types or COT datasets (cot_legacy,
            cot_disaggregated, cot_legacy_combined, cot_disaggregated_combined, cot_cit), comma-
            separated. Default: every type the plan may read. Asking for a COT format the plan does
            not include is a 403; one listed twice is a 400 naming types.
        last_event_id_query (str | Unset): Resume after this event id, for clients that cannot
            send the Last-Event-ID header (the header wins when both are sent).
        last_event_id_header (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | str
    """

    return sync_detailed(
        client=client,
        commodities=commodities,
        types=types,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    commodities: str | Unset = UNSET,
    types: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: str | Unset = UNSET,
) -> Response[ErrorBody | str]:
    """Change notifications (server-sent events)

     A `text/event-stream` that tells you when data changed: one event each time new series points or COT
    reports become readable through the API, filtered by `commodities` and `types`. Opening a stream
    counts as one request against the rate windows. Concurrent streams per account are limited by plan
    (free 1, professional 5, business 20, enterprise 100); one more is 429. After the headers: `retry:
    3000`, then events and a `: keep-alive` comment every 15 s. Each event is `id: <id>`, `event:
    series.updated` or `cot.updated`, `data: <Notification JSON>` (components: Notification). Reconnect
    with `Last-Event-ID: <the last id you received>` (or `last_event_id`) to receive every change after
    it that the server still keeps (the last 7 days at most); when it no longer keeps all of them the
    stream starts with `event: resync` (refetch what you follow). The server ends a stream with a final
    `event: error` whose data is the error body: `unauthorized` (the key was revoked), `forbidden` (the
    plan changed and no longer reads a COT format you asked for), `rate_limited` (the plan changed and
    allows fewer streams: the newest end) or `slow_consumer` (the client read too slowly: reconnect with
    Last-Event-ID).

    Args:
        commodities (str | Unset): Only these commodities: a comma-separated list of distinct
            commodity ids the catalog lists (at most 100; an id it does not list, or one listed twice,
            is a 400 naming commodities). Default: all.
        types (str | Unset): Only these series types or COT datasets (cot_legacy,
            cot_disaggregated, cot_legacy_combined, cot_disaggregated_combined, cot_cit), comma-
            separated. Default: every type the plan may read. Asking for a COT format the plan does
            not include is a 403; one listed twice is a 400 naming types.
        last_event_id_query (str | Unset): Resume after this event id, for clients that cannot
            send the Last-Event-ID header (the header wins when both are sent).
        last_event_id_header (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | str]
    """

    kwargs = _get_kwargs(
        commodities=commodities,
        types=types,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    commodities: str | Unset = UNSET,
    types: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: str | Unset = UNSET,
) -> ErrorBody | str | None:
    """Change notifications (server-sent events)

     A `text/event-stream` that tells you when data changed: one event each time new series points or COT
    reports become readable through the API, filtered by `commodities` and `types`. Opening a stream
    counts as one request against the rate windows. Concurrent streams per account are limited by plan
    (free 1, professional 5, business 20, enterprise 100); one more is 429. After the headers: `retry:
    3000`, then events and a `: keep-alive` comment every 15 s. Each event is `id: <id>`, `event:
    series.updated` or `cot.updated`, `data: <Notification JSON>` (components: Notification). Reconnect
    with `Last-Event-ID: <the last id you received>` (or `last_event_id`) to receive every change after
    it that the server still keeps (the last 7 days at most); when it no longer keeps all of them the
    stream starts with `event: resync` (refetch what you follow). The server ends a stream with a final
    `event: error` whose data is the error body: `unauthorized` (the key was revoked), `forbidden` (the
    plan changed and no longer reads a COT format you asked for), `rate_limited` (the plan changed and
    allows fewer streams: the newest end) or `slow_consumer` (the client read too slowly: reconnect with
    Last-Event-ID).

    Args:
        commodities (str | Unset): Only these commodities: a comma-separated list of distinct
            commodity ids the catalog lists (at most 100; an id it does not list, or one listed twice,
            is a 400 naming commodities). Default: all.
        types (str | Unset): Only these series types or COT datasets (cot_legacy,
            cot_disaggregated, cot_legacy_combined, cot_disaggregated_combined, cot_cit), comma-
            separated. Default: every type the plan may read. Asking for a COT format the plan does
            not include is a 403; one listed twice is a 400 naming types.
        last_event_id_query (str | Unset): Resume after this event id, for clients that cannot
            send the Last-Event-ID header (the header wins when both are sent).
        last_event_id_header (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | str
    """

    return (
        await asyncio_detailed(
            client=client,
            commodities=commodities,
            types=types,
            last_event_id_query=last_event_id_query,
            last_event_id_header=last_event_id_header,
        )
    ).parsed
