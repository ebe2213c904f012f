from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_supply_demand_include import GetSupplyDemandInclude
from ...models.get_supply_demand_view import GetSupplyDemandView
from ...models.supply_demand_response import SupplyDemandResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    slug: str,
    *,
    region: str | Unset = UNSET,
    marketing_year: str | Unset = UNSET,
    attribute: str | Unset = UNSET,
    view: GetSupplyDemandView | Unset = GetSupplyDemandView.FIGURES,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSupplyDemandInclude | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(if_modified_since, Unset):
        headers["If-Modified-Since"] = if_modified_since

    params: dict[str, Any] = {}

    params["region"] = region

    params["marketing_year"] = marketing_year

    params["attribute"] = attribute

    json_view: str | Unset = UNSET
    if not isinstance(view, Unset):
        json_view = view.value

    params["view"] = json_view

    params["as_of"] = as_of

    params["first_release"] = first_release

    json_include: str | Unset = UNSET
    if not isinstance(include, Unset):
        json_include = include.value

    params["include"] = json_include

    params["page"] = page

    params["per_page"] = per_page

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/commodities/{slug}/supply-demand".format(
            slug=quote(str(slug), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | SupplyDemandResponse | None:
    if response.status_code == 200:
        response_200 = SupplyDemandResponse.from_dict(response.json())

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
) -> Response[Any | ErrorBody | SupplyDemandResponse]:
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
    region: str | Unset = UNSET,
    marketing_year: str | Unset = UNSET,
    attribute: str | Unset = UNSET,
    view: GetSupplyDemandView | Unset = GetSupplyDemandView.FIGURES,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSupplyDemandInclude | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | SupplyDemandResponse]:
    """Get supply and demand figures (USDA balance sheets)

     The balance sheets of USDA's World Agricultural Supply and Demand Estimates: one figure per region,
    marketing year and attribute, in the unit USDA states, each version published at its edition (12:00
    New York on the release date; a corrected re-post at its own time). as_of answers with the editions
    released by an instant, first_release=true with the first published versions, include=revisions with
    the earlier ones, view=editions with one figure across every edition and its change (docs/supply-
    demand.md). Grains carry a derived stocks_to_use (ending stocks / total use). Free-tier keys read
    the editions of their last 12 months: an as_of before them, or a marketing_year whose first year is
    before the first year of that window minus one, is a 403 historical_limit naming it
    (docs/decisions.md). Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC
    4180, a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        region (str | Unset): A region of the balance sheets in snake_case: united_states, world,
            or a country or group of the world tables (china, eu, major_exporters, …), as the table
            names it.
        marketing_year (str | Unset): A marketing year as WASDE writes it, YYYY/YY (2026/27: the
            year beginning in 2026), or YYYY for a table kept by calendar year (the U.S. meats: 2025).
        attribute (str | Unset): A row of a balance sheet in snake_case of its name (area_planted,
            yield, beginning_stocks, production, imports, supply_total, feed_and_residual,
            food_seed_industrial, exports, use_total, ending_stocks, avg_farm_price, …), or the
            derived stocks_to_use.
        view (GetSupplyDemandView | Unset): figures (the default): the figures in force, newest
            marketing year first. editions: one figure across every edition that published it, oldest
            first, each with its change from the previous edition; needs marketing_year and attribute
            (else a 400 naming the one missing). Default: GetSupplyDemandView.FIGURES.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Editions released later are absent.
        first_release (bool | Unset): true: each figure as first published (with as_of: the first
            version published by then) instead of the newest. meta.first_release echoes it.
        include (GetSupplyDemandInclude | Unset): revisions: each figure carries `revisions`, its
            earlier versions (oldest first) with their edition and published_at.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | SupplyDemandResponse]
    """

    kwargs = _get_kwargs(
        slug=slug,
        region=region,
        marketing_year=marketing_year,
        attribute=attribute,
        view=view,
        as_of=as_of,
        first_release=first_release,
        include=include,
        page=page,
        per_page=per_page,
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
    region: str | Unset = UNSET,
    marketing_year: str | Unset = UNSET,
    attribute: str | Unset = UNSET,
    view: GetSupplyDemandView | Unset = GetSupplyDemandView.FIGURES,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSupplyDemandInclude | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | SupplyDemandResponse | None:
    """Get supply and demand figures (USDA balance sheets)

     The balance sheets of USDA's World Agricultural Supply and Demand Estimates: one figure per region,
    marketing year and attribute, in the unit USDA states, each version published at its edition (12:00
    New York on the release date; a corrected re-post at its own time). as_of answers with the editions
    released by an instant, first_release=true with the first published versions, include=revisions with
    the earlier ones, view=editions with one figure across every edition and its change (docs/supply-
    demand.md). Grains carry a derived stocks_to_use (ending stocks / total use). Free-tier keys read
    the editions of their last 12 months: an as_of before them, or a marketing_year whose first year is
    before the first year of that window minus one, is a 403 historical_limit naming it
    (docs/decisions.md). Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC
    4180, a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        region (str | Unset): A region of the balance sheets in snake_case: united_states, world,
            or a country or group of the world tables (china, eu, major_exporters, …), as the table
            names it.
        marketing_year (str | Unset): A marketing year as WASDE writes it, YYYY/YY (2026/27: the
            year beginning in 2026), or YYYY for a table kept by calendar year (the U.S. meats: 2025).
        attribute (str | Unset): A row of a balance sheet in snake_case of its name (area_planted,
            yield, beginning_stocks, production, imports, supply_total, feed_and_residual,
            food_seed_industrial, exports, use_total, ending_stocks, avg_farm_price, …), or the
            derived stocks_to_use.
        view (GetSupplyDemandView | Unset): figures (the default): the figures in force, newest
            marketing year first. editions: one figure across every edition that published it, oldest
            first, each with its change from the previous edition; needs marketing_year and attribute
            (else a 400 naming the one missing). Default: GetSupplyDemandView.FIGURES.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Editions released later are absent.
        first_release (bool | Unset): true: each figure as first published (with as_of: the first
            version published by then) instead of the newest. meta.first_release echoes it.
        include (GetSupplyDemandInclude | Unset): revisions: each figure carries `revisions`, its
            earlier versions (oldest first) with their edition and published_at.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | SupplyDemandResponse
    """

    return sync_detailed(
        slug=slug,
        client=client,
        region=region,
        marketing_year=marketing_year,
        attribute=attribute,
        view=view,
        as_of=as_of,
        first_release=first_release,
        include=include,
        page=page,
        per_page=per_page,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    region: str | Unset = UNSET,
    marketing_year: str | Unset = UNSET,
    attribute: str | Unset = UNSET,
    view: GetSupplyDemandView | Unset = GetSupplyDemandView.FIGURES,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSupplyDemandInclude | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | SupplyDemandResponse]:
    """Get supply and demand figures (USDA balance sheets)

     The balance sheets of USDA's World Agricultural Supply and Demand Estimates: one figure per region,
    marketing year and attribute, in the unit USDA states, each version published at its edition (12:00
    New York on the release date; a corrected re-post at its own time). as_of answers with the editions
    released by an instant, first_release=true with the first published versions, include=revisions with
    the earlier ones, view=editions with one figure across every edition and its change (docs/supply-
    demand.md). Grains carry a derived stocks_to_use (ending stocks / total use). Free-tier keys read
    the editions of their last 12 months: an as_of before them, or a marketing_year whose first year is
    before the first year of that window minus one, is a 403 historical_limit naming it
    (docs/decisions.md). Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC
    4180, a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        region (str | Unset): A region of the balance sheets in snake_case: united_states, world,
            or a country or group of the world tables (china, eu, major_exporters, …), as the table
            names it.
        marketing_year (str | Unset): A marketing year as WASDE writes it, YYYY/YY (2026/27: the
            year beginning in 2026), or YYYY for a table kept by calendar year (the U.S. meats: 2025).
        attribute (str | Unset): A row of a balance sheet in snake_case of its name (area_planted,
            yield, beginning_stocks, production, imports, supply_total, feed_and_residual,
            food_seed_industrial, exports, use_total, ending_stocks, avg_farm_price, …), or the
            derived stocks_to_use.
        view (GetSupplyDemandView | Unset): figures (the default): the figures in force, newest
            marketing year first. editions: one figure across every edition that published it, oldest
            first, each with its change from the previous edition; needs marketing_year and attribute
            (else a 400 naming the one missing). Default: GetSupplyDemandView.FIGURES.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Editions released later are absent.
        first_release (bool | Unset): true: each figure as first published (with as_of: the first
            version published by then) instead of the newest. meta.first_release echoes it.
        include (GetSupplyDemandInclude | Unset): revisions: each figure carries `revisions`, its
            earlier versions (oldest first) with their edition and published_at.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | SupplyDemandResponse]
    """

    kwargs = _get_kwargs(
        slug=slug,
        region=region,
        marketing_year=marketing_year,
        attribute=attribute,
        view=view,
        as_of=as_of,
        first_release=first_release,
        include=include,
        page=page,
        per_page=per_page,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    slug: str,
    *,
    client: AuthenticatedClient | Client,
    region: str | Unset = UNSET,
    marketing_year: str | Unset = UNSET,
    attribute: str | Unset = UNSET,
    view: GetSupplyDemandView | Unset = GetSupplyDemandView.FIGURES,
    as_of: str | Unset = UNSET,
    first_release: bool | Unset = UNSET,
    include: GetSupplyDemandInclude | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | SupplyDemandResponse | None:
    """Get supply and demand figures (USDA balance sheets)

     The balance sheets of USDA's World Agricultural Supply and Demand Estimates: one figure per region,
    marketing year and attribute, in the unit USDA states, each version published at its edition (12:00
    New York on the release date; a corrected re-post at its own time). as_of answers with the editions
    released by an instant, first_release=true with the first published versions, include=revisions with
    the earlier ones, view=editions with one figure across every edition and its change (docs/supply-
    demand.md). Grains carry a derived stocks_to_use (ending stocks / total use). Free-tier keys read
    the editions of their last 12 months: an as_of before them, or a marketing_year whose first year is
    before the first year of that window minus one, is a 403 historical_limit naming it
    (docs/decisions.md). Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC
    4180, a header row, streamed; errors stay JSON). An Accept that allows neither is 406. Conditional
    requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is current; only
    every tenth 304 counts against the rate windows.

    Args:
        slug (str): Commodity identifier in UPPER_SNAKE_CASE, for example GOLD.
        region (str | Unset): A region of the balance sheets in snake_case: united_states, world,
            or a country or group of the world tables (china, eu, major_exporters, …), as the table
            names it.
        marketing_year (str | Unset): A marketing year as WASDE writes it, YYYY/YY (2026/27: the
            year beginning in 2026), or YYYY for a table kept by calendar year (the U.S. meats: 2025).
        attribute (str | Unset): A row of a balance sheet in snake_case of its name (area_planted,
            yield, beginning_stocks, production, imports, supply_total, feed_and_residual,
            food_seed_industrial, exports, use_total, ending_stocks, avg_farm_price, …), or the
            derived stocks_to_use.
        view (GetSupplyDemandView | Unset): figures (the default): the figures in force, newest
            marketing year first. editions: one figure across every edition that published it, oldest
            first, each with its change from the previous edition; needs marketing_year and attribute
            (else a 400 naming the one missing). Default: GetSupplyDemandView.FIGURES.
        as_of (str | Unset): Point in time: answer with what had been published at this instant
            (docs/point-in-time.md). A date YYYY-MM-DD means the end of that day in UTC; an RFC 3339
            date-time (with Z or an offset) its instant. Observations first published later are
            absent; revised ones show the version in force then. meta.as_of echoes the instant. A
            malformed value, an instant after the request, or one before the first publication this
            service holds is a 400 naming as_of. Free-tier keys: within their 12 months of history.
            Editions released later are absent.
        first_release (bool | Unset): true: each figure as first published (with as_of: the first
            version published by then) instead of the newest. meta.first_release echoes it.
        include (GetSupplyDemandInclude | Unset): revisions: each figure carries `revisions`, its
            earlier versions (oldest first) with their edition and published_at.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | SupplyDemandResponse
    """

    return (
        await asyncio_detailed(
            slug=slug,
            client=client,
            region=region,
            marketing_year=marketing_year,
            attribute=attribute,
            view=view,
            as_of=as_of,
            first_release=first_release,
            include=include,
            page=page,
            per_page=per_page,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
