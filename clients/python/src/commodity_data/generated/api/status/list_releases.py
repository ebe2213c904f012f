import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dataset_id import DatasetId
from ...models.error_body import ErrorBody
from ...models.list_releases_status import ListReleasesStatus
from ...models.releases_response import ReleasesResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    dataset: DatasetId,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    status: ListReleasesStatus | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_dataset = dataset.value
    params["dataset"] = json_dataset

    json_start_date: str | Unset = UNSET
    if not isinstance(start_date, Unset):
        json_start_date = start_date.isoformat()
    params["start_date"] = json_start_date

    json_end_date: str | Unset = UNSET
    if not isinstance(end_date, Unset):
        json_end_date = end_date.isoformat()
    params["end_date"] = json_end_date

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["page"] = page

    params["per_page"] = per_page

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/releases",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ReleasesResponse | None:
    if response.status_code == 200:
        response_200 = ReleasesResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

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
) -> Response[ErrorBody | ReleasesResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    dataset: DatasetId,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    status: ListReleasesStatus | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
) -> Response[ErrorBody | ReleasesResponse]:
    """A dataset's releases against the agency's calendar

     The releases of one dataset between two local dates (America/New_York): scheduled, published, late,
    missing and cancelled, with the ones a holiday or a shutdown moved marked `shifted` (the Commitments
    of Traders catch-up after the 2025 shutdown, for example). Each with its scheduled time, when this
    service first served it, and the lag; `meta.freshness` gives the p50 and p95 lag per month. An
    unknown dataset, a bad date or a window over 366 days is a 400 naming the parameter. Public: no API
    key; cacheable for 60 s.

    Args:
        dataset (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy,
            futures only), `cftc_legacy_combined` (COT legacy, futures and options combined),
            `cftc_disaggregated` (COT disaggregated, futures only), `cftc_disaggregated_combined` (COT
            disaggregated, futures and options combined), `cftc_cit` (COT supplemental (Commodity
            Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series),
            `eia_monthly` (EIA monthly series), `nass_prices_received` (NASS prices received by
            farmers (Agricultural Prices)), `nass_quarterly_reports` (NASS Grain Stocks, Acreage and
            Prospective Plantings), `ams_lm_hg201` (AMS daily direct slaughtered swine (LM_HG201)),
            `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet` (World Bank
            Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets),
            `ecb_reference_rates` (ECB euro foreign exchange reference rates).
        start_date (datetime.date | Unset): First local date (default: 90 days before today, or
            before end_date). From 1901-01-01 to 2998-12-31: another date is a 400 naming start_date.
        end_date (datetime.date | Unset): Last local date (default: 31 days after today, or after
            start_date). From 1901-01-01 to 2998-12-31, not before start_date and at most 366 days
            after it: otherwise a 400 naming end_date.
        status (ListReleasesStatus | Unset): Only releases of this status (`shifted`: the ones a
            holiday or a shutdown moved).
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ReleasesResponse]
    """

    kwargs = _get_kwargs(
        dataset=dataset,
        start_date=start_date,
        end_date=end_date,
        status=status,
        page=page,
        per_page=per_page,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    dataset: DatasetId,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    status: ListReleasesStatus | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
) -> ErrorBody | ReleasesResponse | None:
    """A dataset's releases against the agency's calendar

     The releases of one dataset between two local dates (America/New_York): scheduled, published, late,
    missing and cancelled, with the ones a holiday or a shutdown moved marked `shifted` (the Commitments
    of Traders catch-up after the 2025 shutdown, for example). Each with its scheduled time, when this
    service first served it, and the lag; `meta.freshness` gives the p50 and p95 lag per month. An
    unknown dataset, a bad date or a window over 366 days is a 400 naming the parameter. Public: no API
    key; cacheable for 60 s.

    Args:
        dataset (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy,
            futures only), `cftc_legacy_combined` (COT legacy, futures and options combined),
            `cftc_disaggregated` (COT disaggregated, futures only), `cftc_disaggregated_combined` (COT
            disaggregated, futures and options combined), `cftc_cit` (COT supplemental (Commodity
            Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series),
            `eia_monthly` (EIA monthly series), `nass_prices_received` (NASS prices received by
            farmers (Agricultural Prices)), `nass_quarterly_reports` (NASS Grain Stocks, Acreage and
            Prospective Plantings), `ams_lm_hg201` (AMS daily direct slaughtered swine (LM_HG201)),
            `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet` (World Bank
            Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets),
            `ecb_reference_rates` (ECB euro foreign exchange reference rates).
        start_date (datetime.date | Unset): First local date (default: 90 days before today, or
            before end_date). From 1901-01-01 to 2998-12-31: another date is a 400 naming start_date.
        end_date (datetime.date | Unset): Last local date (default: 31 days after today, or after
            start_date). From 1901-01-01 to 2998-12-31, not before start_date and at most 366 days
            after it: otherwise a 400 naming end_date.
        status (ListReleasesStatus | Unset): Only releases of this status (`shifted`: the ones a
            holiday or a shutdown moved).
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ReleasesResponse
    """

    return sync_detailed(
        client=client,
        dataset=dataset,
        start_date=start_date,
        end_date=end_date,
        status=status,
        page=page,
        per_page=per_page,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    dataset: DatasetId,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    status: ListReleasesStatus | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
) -> Response[ErrorBody | ReleasesResponse]:
    """A dataset's releases against the agency's calendar

     The releases of one dataset between two local dates (America/New_York): scheduled, published, late,
    missing and cancelled, with the ones a holiday or a shutdown moved marked `shifted` (the Commitments
    of Traders catch-up after the 2025 shutdown, for example). Each with its scheduled time, when this
    service first served it, and the lag; `meta.freshness` gives the p50 and p95 lag per month. An
    unknown dataset, a bad date or a window over 366 days is a 400 naming the parameter. Public: no API
    key; cacheable for 60 s.

    Args:
        dataset (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy,
            futures only), `cftc_legacy_combined` (COT legacy, futures and options combined),
            `cftc_disaggregated` (COT disaggregated, futures only), `cftc_disaggregated_combined` (COT
            disaggregated, futures and options combined), `cftc_cit` (COT supplemental (Commodity
            Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series),
            `eia_monthly` (EIA monthly series), `nass_prices_received` (NASS prices received by
            farmers (Agricultural Prices)), `nass_quarterly_reports` (NASS Grain Stocks, Acreage and
            Prospective Plantings), `ams_lm_hg201` (AMS daily direct slaughtered swine (LM_HG201)),
            `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet` (World Bank
            Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets),
            `ecb_reference_rates` (ECB euro foreign exchange reference rates).
        start_date (datetime.date | Unset): First local date (default: 90 days before today, or
            before end_date). From 1901-01-01 to 2998-12-31: another date is a 400 naming start_date.
        end_date (datetime.date | Unset): Last local date (default: 31 days after today, or after
            start_date). From 1901-01-01 to 2998-12-31, not before start_date and at most 366 days
            after it: otherwise a 400 naming end_date.
        status (ListReleasesStatus | Unset): Only releases of this status (`shifted`: the ones a
            holiday or a shutdown moved).
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ReleasesResponse]
    """

    kwargs = _get_kwargs(
        dataset=dataset,
        start_date=start_date,
        end_date=end_date,
        status=status,
        page=page,
        per_page=per_page,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    dataset: DatasetId,
    start_date: datetime.date | Unset = UNSET,
    end_date: datetime.date | Unset = UNSET,
    status: ListReleasesStatus | Unset = UNSET,
    page: int | Unset = 1,
    per_page: int | Unset = 25,
) -> ErrorBody | ReleasesResponse | None:
    """A dataset's releases against the agency's calendar

     The releases of one dataset between two local dates (America/New_York): scheduled, published, late,
    missing and cancelled, with the ones a holiday or a shutdown moved marked `shifted` (the Commitments
    of Traders catch-up after the 2025 shutdown, for example). Each with its scheduled time, when this
    service first served it, and the lag; `meta.freshness` gives the p50 and p95 lag per month. An
    unknown dataset, a bad date or a window over 366 days is a 400 naming the parameter. Public: no API
    key; cacheable for 60 s.

    Args:
        dataset (DatasetId): A dataset: one source's report kind. `cftc_legacy` (COT legacy,
            futures only), `cftc_legacy_combined` (COT legacy, futures and options combined),
            `cftc_disaggregated` (COT disaggregated, futures only), `cftc_disaggregated_combined` (COT
            disaggregated, futures and options combined), `cftc_cit` (COT supplemental (Commodity
            Index Traders)), `cftc_open_interest` (COT open interest series), `eia_spot_prices` (EIA
            daily spot prices (updated weekly)), `eia_weekly` (EIA weekly petroleum and gas series),
            `eia_monthly` (EIA monthly series), `nass_prices_received` (NASS prices received by
            farmers (Agricultural Prices)), `nass_quarterly_reports` (NASS Grain Stocks, Acreage and
            Prospective Plantings), `ams_lm_hg201` (AMS daily direct slaughtered swine (LM_HG201)),
            `ams_market_news` (AMS Market News, other reports), `worldbank_pink_sheet` (World Bank
            Pink Sheet monthly prices), `wasde` (WASDE supply and demand balance sheets),
            `ecb_reference_rates` (ECB euro foreign exchange reference rates).
        start_date (datetime.date | Unset): First local date (default: 90 days before today, or
            before end_date). From 1901-01-01 to 2998-12-31: another date is a 400 naming start_date.
        end_date (datetime.date | Unset): Last local date (default: 31 days after today, or after
            start_date). From 1901-01-01 to 2998-12-31, not before start_date and at most 366 days
            after it: otherwise a 400 naming end_date.
        status (ListReleasesStatus | Unset): Only releases of this status (`shifted`: the ones a
            holiday or a shutdown moved).
        page (int | Unset): Page number, from 1. A page past the last one is 200 with an empty
            data array. Default: 1.
        per_page (int | Unset): Page size, 1 to 100. Default: 25.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ReleasesResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            dataset=dataset,
            start_date=start_date,
            end_date=end_date,
            status=status,
            page=page,
            per_page=per_page,
        )
    ).parsed
