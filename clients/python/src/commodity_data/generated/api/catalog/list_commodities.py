from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.category import Category
from ...models.commodity_list_response import CommodityListResponse
from ...models.error_body import ErrorBody
from ...models.sort_order import SortOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    category: Category | Unset = UNSET,
    search: str | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
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

    json_category: str | Unset = UNSET
    if not isinstance(category, Unset):
        json_category = category.value

    params["category"] = json_category

    params["search"] = search

    json_sort_order: str | Unset = UNSET
    if not isinstance(sort_order, Unset):
        json_sort_order = sort_order.value

    params["sort_order"] = json_sort_order

    params["page"] = page

    params["per_page"] = per_page

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/commodities",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | CommodityListResponse | ErrorBody | None:
    if response.status_code == 200:
        response_200 = CommodityListResponse.from_dict(response.json())

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
) -> Response[Any | CommodityListResponse | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    category: Category | Unset = UNSET,
    search: str | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | CommodityListResponse | ErrorBody]:
    """List commodities

     Commodities sorted by id, filtered by category and by a literal search on name or symbol. Served as
    application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed;
    errors stay JSON). An Accept that allows neither is 406. Conditional requests: If-None-Match / If-
    Modified-Since get a 304 without a body when your copy is current; only every tenth 304 counts
    against the rate windows.

    Args:
        category (Category | Unset): Commodity category.
        search (str | Unset): Case-insensitive literal substring of the name or symbol, up to 100
            characters; empty: no filter.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CommodityListResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        category=category,
        search=search,
        sort_order=sort_order,
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
    *,
    client: AuthenticatedClient | Client,
    category: Category | Unset = UNSET,
    search: str | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | CommodityListResponse | ErrorBody | None:
    """List commodities

     Commodities sorted by id, filtered by category and by a literal search on name or symbol. Served as
    application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed;
    errors stay JSON). An Accept that allows neither is 406. Conditional requests: If-None-Match / If-
    Modified-Since get a 304 without a body when your copy is current; only every tenth 304 counts
    against the rate windows.

    Args:
        category (Category | Unset): Commodity category.
        search (str | Unset): Case-insensitive literal substring of the name or symbol, up to 100
            characters; empty: no filter.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CommodityListResponse | ErrorBody
    """

    return sync_detailed(
        client=client,
        category=category,
        search=search,
        sort_order=sort_order,
        page=page,
        per_page=per_page,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    category: Category | Unset = UNSET,
    search: str | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | CommodityListResponse | ErrorBody]:
    """List commodities

     Commodities sorted by id, filtered by category and by a literal search on name or symbol. Served as
    application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed;
    errors stay JSON). An Accept that allows neither is 406. Conditional requests: If-None-Match / If-
    Modified-Since get a 304 without a body when your copy is current; only every tenth 304 counts
    against the rate windows.

    Args:
        category (Category | Unset): Commodity category.
        search (str | Unset): Case-insensitive literal substring of the name or symbol, up to 100
            characters; empty: no filter.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | CommodityListResponse | ErrorBody]
    """

    kwargs = _get_kwargs(
        category=category,
        search=search,
        sort_order=sort_order,
        page=page,
        per_page=per_page,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    category: Category | Unset = UNSET,
    search: str | Unset = UNSET,
    sort_order: SortOrder | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | CommodityListResponse | ErrorBody | None:
    """List commodities

     Commodities sorted by id, filtered by category and by a literal search on name or symbol. Served as
    application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, streamed;
    errors stay JSON). An Accept that allows neither is 406. Conditional requests: If-None-Match / If-
    Modified-Since get a 304 without a body when your copy is current; only every tenth 304 counts
    against the rate windows.

    Args:
        category (Category | Unset): Commodity category.
        search (str | Unset): Case-insensitive literal substring of the name or symbol, up to 100
            characters; empty: no filter.
        sort_order (SortOrder | Unset): Sort direction.
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | CommodityListResponse | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            category=category,
            search=search,
            sort_order=sort_order,
            page=page,
            per_page=per_page,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
