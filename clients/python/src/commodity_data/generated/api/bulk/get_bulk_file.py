from http import HTTPStatus
from io import BytesIO
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    file: str,
    *,
    range_: str | Unset = UNSET,
    if_range: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(range_, Unset):
        headers["Range"] = range_

    if not isinstance(if_range, Unset):
        headers["If-Range"] = if_range

    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(if_modified_since, Unset):
        headers["If-Modified-Since"] = if_modified_since

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/bulk/{file}".format(
            file=quote(str(file), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 206:
        response_206 = File(payload=BytesIO(response.content))

        return response_206

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

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 414:
        response_414 = ErrorBody.from_dict(response.json())

        return response_414

    if response.status_code == 416:
        response_416 = ErrorBody.from_dict(response.json())

        return response_416

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
) -> Response[Any | ErrorBody | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    file: str,
    *,
    client: AuthenticatedClient | Client,
    range_: str | Unset = UNSET,
    if_range: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | File]:
    """Download a bulk file

     One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet
    (application/vnd.apache.parquet). The ETag is the sha256 of the manifest (strong); If-None-Match /
    If-Modified-Since get a 304. One byte range (`Range: bytes=first-last`, `first-`, or `-suffix`) is
    answered 206 with Content-Range, and If-Range with the ETag resumes a download only when the file is
    unchanged. A plan the manifest does not list for the file gets 403 (Free: only the `recent` files,
    no COT; Professional: no disaggregated COT). Counted as one request against the rate windows,
    whatever its size.

    Args:
        file (str): A file name from GET /bulk, e.g. price.recent.csv.gz.
        range_ (str | Unset):
        if_range (str | Unset):
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | File]
    """

    kwargs = _get_kwargs(
        file=file,
        range_=range_,
        if_range=if_range,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    file: str,
    *,
    client: AuthenticatedClient | Client,
    range_: str | Unset = UNSET,
    if_range: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | File | None:
    """Download a bulk file

     One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet
    (application/vnd.apache.parquet). The ETag is the sha256 of the manifest (strong); If-None-Match /
    If-Modified-Since get a 304. One byte range (`Range: bytes=first-last`, `first-`, or `-suffix`) is
    answered 206 with Content-Range, and If-Range with the ETag resumes a download only when the file is
    unchanged. A plan the manifest does not list for the file gets 403 (Free: only the `recent` files,
    no COT; Professional: no disaggregated COT). Counted as one request against the rate windows,
    whatever its size.

    Args:
        file (str): A file name from GET /bulk, e.g. price.recent.csv.gz.
        range_ (str | Unset):
        if_range (str | Unset):
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | File
    """

    return sync_detailed(
        file=file,
        client=client,
        range_=range_,
        if_range=if_range,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    ).parsed


async def asyncio_detailed(
    file: str,
    *,
    client: AuthenticatedClient | Client,
    range_: str | Unset = UNSET,
    if_range: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Response[Any | ErrorBody | File]:
    """Download a bulk file

     One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet
    (application/vnd.apache.parquet). The ETag is the sha256 of the manifest (strong); If-None-Match /
    If-Modified-Since get a 304. One byte range (`Range: bytes=first-last`, `first-`, or `-suffix`) is
    answered 206 with Content-Range, and If-Range with the ETag resumes a download only when the file is
    unchanged. A plan the manifest does not list for the file gets 403 (Free: only the `recent` files,
    no COT; Professional: no disaggregated COT). Counted as one request against the rate windows,
    whatever its size.

    Args:
        file (str): A file name from GET /bulk, e.g. price.recent.csv.gz.
        range_ (str | Unset):
        if_range (str | Unset):
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | File]
    """

    kwargs = _get_kwargs(
        file=file,
        range_=range_,
        if_range=if_range,
        if_none_match=if_none_match,
        if_modified_since=if_modified_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    file: str,
    *,
    client: AuthenticatedClient | Client,
    range_: str | Unset = UNSET,
    if_range: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    if_modified_since: str | Unset = UNSET,
) -> Any | ErrorBody | File | None:
    """Download a bulk file

     One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet
    (application/vnd.apache.parquet). The ETag is the sha256 of the manifest (strong); If-None-Match /
    If-Modified-Since get a 304. One byte range (`Range: bytes=first-last`, `first-`, or `-suffix`) is
    answered 206 with Content-Range, and If-Range with the ETag resumes a download only when the file is
    unchanged. A plan the manifest does not list for the file gets 403 (Free: only the `recent` files,
    no COT; Professional: no disaggregated COT). Counted as one request against the rate windows,
    whatever its size.

    Args:
        file (str): A file name from GET /bulk, e.g. price.recent.csv.gz.
        range_ (str | Unset):
        if_range (str | Unset):
        if_none_match (str | Unset):
        if_modified_since (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | File
    """

    return (
        await asyncio_detailed(
            file=file,
            client=client,
            range_=range_,
            if_range=if_range,
            if_none_match=if_none_match,
            if_modified_since=if_modified_since,
        )
    ).parsed
