import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.frequency import Frequency
from ...models.get_series_include import GetSeriesInclude
from ...models.series_response import SeriesResponse
from ...models.series_type import SeriesType
from ...models.sort_order import SortOrder
from ...models.transform import Transform
from ...types import UNSET, Response, Unset


def _get_kwargs(
    slug: str,
    *,
    type_: SeriesType,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    frequency: Frequency | Unset = UNSET,
    transform: Transform | Unset = UNSET,
    limit: int | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSeriesInclude | Unset = UNSET,
    currency: str | Unset = UNSET,
    unit: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(if_modified_since, Unset):
        headers["If-Modified-Since"] = if_modified_since

    params: dict[str, Any] = {}

    json_type_ = type_.value
    params["type"] = json_type_

    json_start_date: str | Unset = UNSET
    if not isinstance(start_date, Unset):
        json_start_date = start_date.isoformat()
    params["start_date"] = json_start_date

    json_end_date: str | Unset = UNSET
    if not isinstance(end_date, Unset):
        json_end_date = end_date.isoformat()
    params["end_date"] = json_end_date

    json_frequency: str | Unset = UNSET
    if not isinstance(frequency, Unset):
        json_frequency = frequency.value

    params["frequency"] = json_frequency

    json_transform: str | Unset = UNSET
    if not isinstance(transform, Unset):
        json_transform = transform.value

    params["transform"] = json_transform

    params["limit"] = limit

    json_sort_order: str | Unset = UNSET
    if not isinstance(sort_order, Unset):
        json_sort_order = sort_order.value

    params["sort_order"] = json_sort_order

    params["as_of"] = as_of

    params["first_release"] = first_release

    json_include: str | Unset = UNSET
    if not isinstance(include, Unset):
        json_include = include.value

    params["include"] = json_include

    params["currency"] = currency

    params["unit"] = unit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/commodities/{slug}/series".format(
            slug=quote(str(slug), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | SeriesResponse | None:
    if response.status_code == 200:
        response_200 = SeriesResponse.from_dict(response.json())

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

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

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
) -> Response[Any | ErrorBody | SeriesResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    type_: SeriesType,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    frequency: Frequency | Unset = UNSET,
    transform: Transform | Unset = UNSET,
    limit: int | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSeriesInclude | Unset = UNSET,
    currency: str | Unset = UNSET,
    unit: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | SeriesResponse]:
    """Get a time series

     Points of one series in a date range, optionally resampled to a coarser frequency and transformed.
    Each point says when it was published (published_at, first_seen_at); as_of answers with what had
    been published at an instant, first_release=true with the first published versions,
    include=revisions with the earlier versions (docs/point-in-time.md). Free-tier keys can read the
    last 12 months. Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180,
    a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        type_ (SeriesType): A time series type served by GET /commodities/{slug}/series.
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        frequency (Frequency | Unset): Sampling frequency.
        transform (Transform | Unset): none, change (v[t]-v[t-1]), pct_change (percent),
            cumulative (running sum).
        limit (int | Unset): Maximum number of points, 1 to 10000, applied after sorting.
        sort_order (SortOrder | Unset): Sort direction.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Without end_date, end_date defaults to the date of as_of (UTC), so start_date to one year
            before it.
        first_release (bool | Unset): true: the first published version of every observation (with
            as_of: the first one published by then) instead of the newest. meta.first_release echoes
            it.
        include (GetSeriesInclude | Unset): revisions: each point carries `revisions`, its earlier
            versions (oldest first) with their published_at. Only at the native frequency and with
            transform=none; otherwise a 400 naming include.
        currency (str | Unset): Convert prices to this currency (ISO 4217): any currency with euro
            reference rates, EUR, or USD. Each point uses the rate of its own date (daily), or the
            average of its week's or month's daily rates; with as_of, the rates published by then.
            meta.conversion shows the working. A currency without rates is a 400 naming currency, and
            so is currency on a series that is not a price.
        unit (str | Unset): Convert to this physical unit: t, kg, g, lb, cwt, short_ton, troy_oz,
            bu, bbl, gal, m3, MMBtu, GJ (bushels: corn and sorghum 56 lb, wheat and soybeans 60 lb,
            oats 32 lb), or a price unit <currency>/<measure> such as USD/t or USc/bu (US cents). A
            unit of another kind than the series (gold in bushels) is a 400 naming unit.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | SeriesResponse]
    """

    kwargs = _get_kwargs(
        slug=slug,
        type_=type_,
        start_date=start_date,
        end_date=end_date,
        frequency=frequency,
        transform=transform,
        limit=limit,
        sort_order=sort_order,
        as_of=as_of,
        first_release=first_release,
        include=include,
        currency=currency,
        unit=unit,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    type_: SeriesType,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    frequency: Frequency | Unset = UNSET,
    transform: Transform | Unset = UNSET,
    limit: int | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSeriesInclude | Unset = UNSET,
    currency: str | Unset = UNSET,
    unit: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | SeriesResponse | None:
    """Get a time series

     Points of one series in a date range, optionally resampled to a coarser frequency and transformed.
    Each point says when it was published (published_at, first_seen_at); as_of answers with what had
    been published at an instant, first_release=true with the first published versions,
    include=revisions with the earlier versions (docs/point-in-time.md). Free-tier keys can read the
    last 12 months. Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180,
    a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        type_ (SeriesType): A time series type served by GET /commodities/{slug}/series.
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        frequency (Frequency | Unset): Sampling frequency.
        transform (Transform | Unset): none, change (v[t]-v[t-1]), pct_change (percent),
            cumulative (running sum).
        limit (int | Unset): Maximum number of points, 1 to 10000, applied after sorting.
        sort_order (SortOrder | Unset): Sort direction.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Without end_date, end_date defaults to the date of as_of (UTC), so start_date to one year
            before it.
        first_release (bool | Unset): true: the first published version of every observation (with
            as_of: the first one published by then) instead of the newest. meta.first_release echoes
            it.
        include (GetSeriesInclude | Unset): revisions: each point carries `revisions`, its earlier
            versions (oldest first) with their published_at. Only at the native frequency and with
            transform=none; otherwise a 400 naming include.
        currency (str | Unset): Convert prices to this currency (ISO 4217): any currency with euro
            reference rates, EUR, or USD. Each point uses the rate of its own date (daily), or the
            average of its week's or month's daily rates; with as_of, the rates published by then.
            meta.conversion shows the working. A currency without rates is a 400 naming currency, and
            so is currency on a series that is not a price.
        unit (str | Unset): Convert to this physical unit: t, kg, g, lb, cwt, short_ton, troy_oz,
            bu, bbl, gal, m3, MMBtu, GJ (bushels: corn and sorghum 56 lb, wheat and soybeans 60 lb,
            oats 32 lb), or a price unit <currency>/<measure> such as USD/t or USc/bu (US cents). A
            unit of another kind than the series (gold in bushels) is a 400 naming unit.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | SeriesResponse
    """

    return sync_detailed(
        slug=slug,
        client=client,
        type_=type_,
        start_date=start_date,
        end_date=end_date,
        frequency=frequency,
        transform=transform,
        limit=limit,
        sort_order=sort_order,
        as_of=as_of,
        first_release=first_release,
        include=include,
        currency=currency,
        unit=unit,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    type_: SeriesType,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    frequency: Frequency | Unset = UNSET,
    transform: Transform | Unset = UNSET,
    limit: int | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSeriesInclude | Unset = UNSET,
    currency: str | Unset = UNSET,
    unit: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | SeriesResponse]:
    """Get a time series

     Points of one series in a date range, optionally resampled to a coarser frequency and transformed.
    Each point says when it was published (published_at, first_seen_at); as_of answers with what had
    been published at an instant, first_release=true with the first published versions,
    include=revisions with the earlier versions (docs/point-in-time.md). Free-tier keys can read the
    last 12 months. Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180,
    a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        type_ (SeriesType): A time series type served by GET /commodities/{slug}/series.
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        frequency (Frequency | Unset): Sampling frequency.
        transform (Transform | Unset): none, change (v[t]-v[t-1]), pct_change (percent),
            cumulative (running sum).
        limit (int | Unset): Maximum number of points, 1 to 10000, applied after sorting.
        sort_order (SortOrder | Unset): Sort direction.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Without end_date, end_date defaults to the date of as_of (UTC), so start_date to one year
            before it.
        first_release (bool | Unset): true: the first published version of every observation (with
            as_of: the first one published by then) instead of the newest. meta.first_release echoes
            it.
        include (GetSeriesInclude | Unset): revisions: each point carries `revisions`, its earlier
            versions (oldest first) with their published_at. Only at the native frequency and with
            transform=none; otherwise a 400 naming include.
        currency (str | Unset): Convert prices to this currency (ISO 4217): any currency with euro
            reference rates, EUR, or USD. Each point uses the rate of its own date (daily), or the
            average of its week's or month's daily rates; with as_of, the rates published by then.
            meta.conversion shows the working. A currency without rates is a 400 naming currency, and
            so is currency on a series that is not a price.
        unit (str | Unset): Convert to this physical unit: t, kg, g, lb, cwt, short_ton, troy_oz,
            bu, bbl, gal, m3, MMBtu, GJ (bushels: corn and sorghum 56 lb, wheat and soybeans 60 lb,
            oats 32 lb), or a price unit <currency>/<measure> such as USD/t or USc/bu (US cents). A
            unit of another kind than the series (gold in bushels) is a 400 naming unit.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | SeriesResponse]
    """

    kwargs = _get_kwargs(
        slug=slug,
        type_=type_,
        start_date=start_date,
        end_date=end_date,
        frequency=frequency,
        transform=transform,
        limit=limit,
        sort_order=sort_order,
        as_of=as_of,
        first_release=first_release,
        include=include,
        currency=currency,
        unit=unit,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    type_: SeriesType,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    frequency: Frequency | Unset = UNSET,
    transform: Transform | Unset = UNSET,
    limit: int | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSeriesInclude | Unset = UNSET,
    currency: str | Unset = UNSET,
    unit: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | SeriesResponse | None:
    """Get a time series

     Points of one series in a date range, optionally resampled to a coarser frequency and transformed.
    Each point says when it was published (published_at, first_seen_at); as_of answers with what had
    been published at an instant, first_release=true with the first published versions,
    include=revisions with the earlier versions (docs/point-in-time.md). Free-tier keys can read the
    last 12 months. Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180,
    a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        type_ (SeriesType): A time series type served by GET /commodities/{slug}/series.
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        frequency (Frequency | Unset): Sampling frequency.
        transform (Transform | Unset): none, change (v[t]-v[t-1]), pct_change (percent),
            cumulative (running sum).
        limit (int | Unset): Maximum number of points, 1 to 10000, applied after sorting.
        sort_order (SortOrder | Unset): Sort direction.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Without end_date, end_date defaults to the date of as_of (UTC), so start_date to one year
            before it.
        first_release (bool | Unset): true: the first published version of every observation (with
            as_of: the first one published by then) instead of the newest. meta.first_release echoes
            it.
        include (GetSeriesInclude | Unset): revisions: each point carries `revisions`, its earlier
            versions (oldest first) with their published_at. Only at the native frequency and with
            transform=none; otherwise a 400 naming include.
        currency (str | Unset): Convert prices to this currency (ISO 4217): any currency with euro
            reference rates, EUR, or USD. Each point uses the rate of its own date (daily), or the
            average of its week's or month's daily rates; with as_of, the rates published by then.
            meta.conversion shows the working. A currency without rates is a 400 naming currency, and
            so is currency on a series that is not a price.
        unit (str | Unset): Convert to this physical unit: t, kg, g, lb, cwt, short_ton, troy_oz,
            bu, bbl, gal, m3, MMBtu, GJ (bushels: corn and sorghum 56 lb, wheat and soybeans 60 lb,
            oats 32 lb), or a price unit <currency>/<measure> such as USD/t or USc/bu (US cents). A
            unit of another kind than the series (gold in bushels) is a 400 naming unit.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | SeriesResponse
    """

    return (
        await asyncio_detailed(
            slug=slug,
            client=client,
            type_=type_,
            start_date=start_date,
            end_date=end_date,
            frequency=frequency,
            transform=transform,
            limit=limit,
            sort_order=sort_order,
            as_of=as_of,
            first_release=first_release,
            include=include,
            currency=currency,
            unit=unit,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
