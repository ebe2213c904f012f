import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cot_format import CotFormat
from ...models.cot_response import CotResponse
from ...models.cot_scope import CotScope
from ...models.error_body import ErrorBody
from ...models.sort_order import SortOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    slug: str,
    *,
    format_: CotFormat | Unset = UNSET,
    scope: CotScope | Unset = UNSET,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    include: str | Unset = UNSET,
    index_weeks: int | Unset = 156,
    as_of: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(if_modified_since, Unset):
        headers["If-Modified-Since"] = if_modified_since

    params: dict[str, Any] = {}

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_scope: str | Unset = UNSET
    if not isinstance(scope, Unset):
        json_scope = scope.value

    params["scope"] = json_scope

    json_start_date: str | Unset = UNSET
    if not isinstance(start_date, Unset):
        json_start_date = start_date.isoformat()
    params["start_date"] = json_start_date

    json_end_date: str | Unset = UNSET
    if not isinstance(end_date, Unset):
        json_end_date = end_date.isoformat()
    params["end_date"] = json_end_date

    json_sort_order: str | Unset = UNSET
    if not isinstance(sort_order, Unset):
        json_sort_order = sort_order.value

    params["sort_order"] = json_sort_order

    params["page"] = page

    params["per_page"] = per_page

    params["include"] = include

    params["index_weeks"] = index_weeks

    params["as_of"] = as_of

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/commodities/{slug}/cot".format(
            slug=quote(str(slug), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | CotResponse | ErrorBody | None:
    if response.status_code == 200:
        response_200 = CotResponse.from_dict(response.json())

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
) -> Response[Any | CotResponse | ErrorBody]:
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
    format_: CotFormat | Unset = UNSET,
    scope: CotScope | Unset = UNSET,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    include: str | Unset = UNSET,
    index_weeks: int | Unset = 156,
    as_of: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | CotResponse | ErrorBody]:
    """Get positioning (COT) reports

     Commitments of Traders reports, newest first by default. Each report says when it was published
    (published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time);
    as_of answers with the reports published by an instant (docs/point-in-time.md). scope chooses
    futures-only (the default) or futures-and-options combined reports, never mixed; format=cit serves
    the Commodity Index Trader supplement (combined, 13 agricultural markets). A report that failed a
    consistency check names it in failed_checks and is served as published. Legacy and cit need
    Professional or above; disaggregated needs Business or above. Served as application/json (default)
    or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed; errors stay JSON). An Accept
    that allows neither is 406. Conditional requests: If-None-Match / If-Modified-Since get a 304
    without a body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        format_ (CotFormat | Unset): COT report format: legacy, disaggregated, or cit (the
            Supplemental report: Commodity Index Trader positions).
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options
            (futures plus delta-adjusted options, the CFTC's combined reports; the CIT supplement is
            published combined only).
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        include (str | Unset): Opt-in analytics added to each report: a comma-separated list of
            distinct values from changes, pct_of_oi, cot_index (for example changes,pct_of_oi). An
            unknown, repeated or empty value is a 400 naming include. Without include the reports
            carry none of them.
        index_weeks (int | Unset): Window of cot_index in reports (weeks), 26 to 520, default 156
            (three years). Used only with include=cot_index; accepted and ignored otherwise. Default:
            156.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            The analytics are computed over the reports of that view.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CotResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        slug=slug,
        format_=format_,
        scope=scope,
        start_date=start_date,
        end_date=end_date,
        sort_order=sort_order,
        page=page,
        per_page=per_page,
        include=include,
        index_weeks=index_weeks,
        as_of=as_of,
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
    format_: CotFormat | Unset = UNSET,
    scope: CotScope | Unset = UNSET,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    include: str | Unset = UNSET,
    index_weeks: int | Unset = 156,
    as_of: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | CotResponse | ErrorBody | None:
    """Get positioning (COT) reports

     Commitments of Traders reports, newest first by default. Each report says when it was published
    (published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time);
    as_of answers with the reports published by an instant (docs/point-in-time.md). scope chooses
    futures-only (the default) or futures-and-options combined reports, never mixed; format=cit serves
    the Commodity Index Trader supplement (combined, 13 agricultural markets). A report that failed a
    consistency check names it in failed_checks and is served as published. Legacy and cit need
    Professional or above; disaggregated needs Business or above. Served as application/json (default)
    or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed; errors stay JSON). An Accept
    that allows neither is 406. Conditional requests: If-None-Match / If-Modified-Since get a 304
    without a body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        format_ (CotFormat | Unset): COT report format: legacy, disaggregated, or cit (the
            Supplemental report: Commodity Index Trader positions).
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options
            (futures plus delta-adjusted options, the CFTC's combined reports; the CIT supplement is
            published combined only).
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        include (str | Unset): Opt-in analytics added to each report: a comma-separated list of
            distinct values from changes, pct_of_oi, cot_index (for example changes,pct_of_oi). An
            unknown, repeated or empty value is a 400 naming include. Without include the reports
            carry none of them.
        index_weeks (int | Unset): Window of cot_index in reports (weeks), 26 to 520, default 156
            (three years). Used only with include=cot_index; accepted and ignored otherwise. Default:
            156.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            The analytics are computed over the reports of that view.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CotResponse | ErrorBody
    """

    return sync_detailed(
        slug=slug,
        client=client,
        format_=format_,
        scope=scope,
        start_date=start_date,
        end_date=end_date,
        sort_order=sort_order,
        page=page,
        per_page=per_page,
        include=include,
        index_weeks=index_weeks,
        as_of=as_of,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    format_: CotFormat | Unset = UNSET,
    scope: CotScope | Unset = UNSET,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    include: str | Unset = UNSET,
    index_weeks: int | Unset = 156,
    as_of: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | CotResponse | ErrorBody]:
    """Get positioning (COT) reports

     Commitments of Traders reports, newest first by default. Each report says when it was published
    (published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time);
    as_of answers with the reports published by an instant (docs/point-in-time.md). scope chooses
    futures-only (the default) or futures-and-options combined reports, never mixed; format=cit serves
    the Commodity Index Trader supplement (combined, 13 agricultural markets). A report that failed a
    consistency check names it in failed_checks and is served as published. Legacy and cit need
    Professional or above; disaggregated needs Business or above. Served as application/json (default)
    or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed; errors stay JSON). An Accept
    that allows neither is 406. Conditional requests: If-None-Match / If-Modified-Since get a 304
    without a body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        format_ (CotFormat | Unset): COT report format: legacy, disaggregated, or cit (the
            Supplemental report: Commodity Index Trader positions).
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options
            (futures plus delta-adjusted options, the CFTC's combined reports; the CIT supplement is
            published combined only).
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        include (str | Unset): Opt-in analytics added to each report: a comma-separated list of
            distinct values from changes, pct_of_oi, cot_index (for example changes,pct_of_oi). An
            unknown, repeated or empty value is a 400 naming include. Without include the reports
            carry none of them.
        index_weeks (int | Unset): Window of cot_index in reports (weeks), 26 to 520, default 156
            (three years). Used only with include=cot_index; accepted and ignored otherwise. Default:
            156.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            The analytics are computed over the reports of that view.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CotResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        slug=slug,
        format_=format_,
        scope=scope,
        start_date=start_date,
        end_date=end_date,
        sort_order=sort_order,
        page=page,
        per_page=per_page,
        include=include,
        index_weeks=index_weeks,
        as_of=as_of,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    format_: CotFormat | Unset = UNSET,
    scope: CotScope | Unset = UNSET,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    include: str | Unset = UNSET,
    index_weeks: int | Unset = 156,
    as_of: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | CotResponse | ErrorBody | None:
    """Get positioning (COT) reports

     Commitments of Traders reports, newest first by default. Each report says when it was published
    (published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time);
    as_of answers with the reports published by an instant (docs/point-in-time.md). scope chooses
    futures-only (the default) or futures-and-options combined reports, never mixed; format=cit serves
    the Commodity Index Trader supplement (combined, 13 agricultural markets). A report that failed a
    consistency check names it in failed_checks and is served as published. Legacy and cit need
    Professional or above; disaggregated needs Business or above. Served as application/json (default)
    or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed; errors stay JSON). An Accept
    that allows neither is 406. Conditional requests: If-None-Match / If-Modified-Since get a 304
    without a body when your copy is current; only every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        format_ (CotFormat | Unset): COT report format: legacy, disaggregated, or cit (the
            Supplemental report: Commodity Index Trader positions).
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options
            (futures plus delta-adjusted options, the CFTC's combined reports; the CIT supplement is
            published combined only).
        start_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        end_date (datetime.date | Unset): A calendar date, YYYY-MM-DD.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        include (str | Unset): Opt-in analytics added to each report: a comma-separated list of
            distinct values from changes, pct_of_oi, cot_index (for example changes,pct_of_oi). An
            unknown, repeated or empty value is a 400 naming include. Without include the reports
            carry none of them.
        index_weeks (int | Unset): Window of cot_index in reports (weeks), 26 to 520, default 156
            (three years). Used only with include=cot_index; accepted and ignored otherwise. Default:
            156.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            The analytics are computed over the reports of that view.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CotResponse | ErrorBody
    """

    return (
        await asyncio_detailed(
            slug=slug,
            client=client,
            format_=format_,
            scope=scope,
            start_date=start_date,
            end_date=end_date,
            sort_order=sort_order,
            page=page,
            per_page=per_page,
            include=include,
            index_weeks=index_weeks,
            as_of=as_of,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
