"""The hand-written layer over the generated client (commodity_data.generated)."""

from __future__ import annotations

import datetime
import enum
import ipaddress
import os
import re
import time
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Self, TypeVar
from urllib.parse import urlsplit

import httpx

from ._errors import APIConnectionError, CommodityDataError, RateLimitError, error_from_response
from ._pagination import CotPager, Pager, Series, SupplyDemandPager
from .generated import AuthenticatedClient
from .generated.api.bulk import list_bulk_files
from .generated.api.catalog import get_commodity, list_commodities
from .generated.api.positioning import get_cot_reports
from .generated.api.series import get_series
from .generated.api.status import get_status, list_datasets, list_releases
from .generated.api.supply_demand import get_supply_demand
from .generated.models.bulk_list_response import BulkListResponse
from .generated.models.category import Category
from .generated.models.commodity_detail_response import CommodityDetailResponse
from .generated.models.commodity_list_response import CommodityListResponse
from .generated.models.commodity_summary import CommoditySummary
from .generated.models.cot_format import CotFormat
from .generated.models.cot_response import CotResponse
from .generated.models.cot_scope import CotScope
from .generated.models.dataset_id import DatasetId
from .generated.models.datasets_response import DatasetsResponse
from .generated.models.frequency import Frequency
from .generated.models.get_supply_demand_include import GetSupplyDemandInclude
from .generated.models.get_supply_demand_view import GetSupplyDemandView
from .generated.models.list_releases_status import ListReleasesStatus
from .generated.models.releases_response import ReleasesResponse
from .generated.models.series_response import SeriesResponse
from .generated.models.series_type import SeriesType
from .generated.models.sort_order import SortOrder
from .generated.models.status_response import StatusResponse
from .generated.models.supply_demand_response import SupplyDemandResponse
from .generated.models.time_series_point import TimeSeriesPoint
from .generated.models.transform import Transform
from .generated.types import UNSET

__version__ = "0.1.0"

#: What ``npm start`` serves; CDS_BASE_URL overrides it.
DEFAULT_BASE_URL = "http://127.0.0.1:8080/api/v1"
API_PREFIX = "/api/v1"
#: What replaces the key in a message, were it ever to appear in one.
REDACTED = "[REDACTED]"
_KEY = re.compile(r"[\x21-\x7e]+")

M = TypeVar("M")
E = TypeVar("E", bound=enum.Enum)

DateLike = datetime.date | str


def _is_loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1: this machine, where plain http never leaves it."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _base_url(url: str, allow_insecure_http: bool = False) -> str:
    """The API root: a bare origin (``http://host:8080``) gets ``/api/v1``, as ``npm start`` prints it.

    Plain http is refused to any host but this machine (the key would cross the network in clear),
    unless ``allow_insecure_http`` says the network in between is trusted.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an http(s) URL such as {DEFAULT_BASE_URL}, not {url!r}")
    host = (parts.hostname or "").rstrip(".")
    if parts.scheme == "http" and not allow_insecure_http and not _is_loopback(host):
        raise ValueError(
            f"base_url {parts.scheme}://{parts.netloc} is plain http to another machine: the API key would travel"
            " in clear. Use https://, or pass allow_insecure_http=True (or set CDS_ALLOW_INSECURE_HTTP=1)"
            " when the network in between is trusted"
        )
    path = parts.path.rstrip("/")
    return f"{parts.scheme}://{parts.netloc}{path or API_PREFIX}"


def _check_key(key: str) -> None:
    """An API key is printable ASCII without spaces; anything else could not travel in a header, and
    the HTTP library's complaint would quote it. The message never quotes it."""
    if not _KEY.fullmatch(key):
        raise ValueError("the API key has characters an API key never has (spaces, line breaks, non-ASCII): check it")


def _scrub(error: BaseException, key: str) -> None:
    """Cuts the key out of an error's message (were an answer ever to quote it)."""
    if any(isinstance(a, str) and key in a for a in error.args):
        error.args = tuple(a.replace(key, REDACTED) if isinstance(a, str) else a for a in error.args)
    message = getattr(error, "message", None)
    if isinstance(message, str) and key in message:
        error.message = message.replace(key, REDACTED)  # type: ignore[attr-defined]


def _enum(cls: type[E], value: E | str | None) -> E | Any:
    if value is None:
        return UNSET
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in cls)
        raise ValueError(f"{value!r} is not a {cls.__name__}: one of {allowed}") from None


def _date(value: DateLike | None) -> datetime.date | Any:
    if value is None:
        return UNSET
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date: YYYY-MM-DD") from None


def _unset(value: Any) -> Any:
    return UNSET if value is None else value


def _query_value(value: Any) -> str:
    """A parameter the generated client does not know yet (``as_of``...) as the API reads it."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ",".join(_query_value(v) for v in value)
    return str(value)


class Client:
    """The Commodity Data Service API.

    Args:
        api_key: the API key; default the CDS_API_KEY environment variable.
        base_url: the API root, e.g. ``http://127.0.0.1:8080/api/v1``; default CDS_BASE_URL, then
            that address (what ``npm start`` serves). An origin without a path gets ``/api/v1``.
        timeout: seconds each HTTP request may take (connecting, and between bytes of the answer).
        max_retries: how many times a 429 is retried after waiting its Retry-After.
        max_retry_wait: the longest Retry-After waited; a longer one (the daily window) is raised at once.
        deadline: seconds one method call may take in all, retries and waits included.
        allow_insecure_http: send the key over plain ``http://`` to another machine (refused by
            default: only loopback hosts, ``localhost``, ``127.0.0.0/8`` and ``::1``, are reached over
            http); default the CDS_ALLOW_INSECURE_HTTP environment variable (``1``).

    The key is never printed: ``repr(client)``, ``repr(client.lowlevel)`` and every error message
    leave it out.

    Every method takes the API's query parameters as keyword arguments, and passes any other
    keyword argument on as a query parameter as it is (``as_of=...`` once the API has it).
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        deadline: float = 180.0,
        allow_insecure_http: bool | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("CDS_API_KEY", "")
        if not key:
            raise ValueError("no API key: pass Client(api_key=...) or set CDS_API_KEY")
        _check_key(key)
        if timeout <= 0 or deadline <= 0 or max_retries < 0 or max_retry_wait < 0:
            raise ValueError("timeout and deadline must be positive, max_retries and max_retry_wait not negative")
        if allow_insecure_http is None:
            allow_insecure_http = os.environ.get("CDS_ALLOW_INSECURE_HTTP", "") in ("1", "true")
        self.base_url = _base_url(base_url or os.environ.get("CDS_BASE_URL") or DEFAULT_BASE_URL, allow_insecure_http)
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.deadline = deadline
        httpx_args: dict[str, Any] = {"transport": transport} if transport is not None else {}
        #: The generated low-level client (commodity_data.generated), for what this layer does not cover.
        self.lowlevel = AuthenticatedClient(
            base_url=self.base_url,
            token=key,
            timeout=httpx.Timeout(timeout),
            # JSON always: the API also serves CSV to a client that prefers it
            headers={"User-Agent": f"commodity-data-python/{__version__}", "Accept": "application/json"},
            httpx_args=httpx_args,
        )

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, timeout={self.timeout!r}, deadline={self.deadline!r})"

    def close(self) -> None:
        self.lowlevel.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- the endpoints ----------------------------------------------------------------------------

    def commodities(
        self,
        *,
        category: Category | str | None = None,
        search: str | None = None,
        sort_order: SortOrder | str | None = None,
        per_page: int | None = 100,
        page: int = 1,
        **params: Any,
    ) -> Pager[CommoditySummary]:
        """Every commodity of the catalog (filtered), across pages: iterate it, or ``.first()``, ``.total``."""
        known = {
            "category": _enum(Category, category),
            "search": _unset(search),
            "sort_order": _enum(SortOrder, sort_order),
            "per_page": _unset(per_page),
        }

        def fetch(number: int) -> CommodityListResponse:
            return self._call(list_commodities, (), {**known, "page": number}, params, CommodityListResponse)

        return Pager(fetch, page)

    def commodity(self, slug: str, **params: Any) -> CommodityDetailResponse:
        """One commodity and every series it offers (``.data.available_series``)."""
        return self._call(get_commodity, (slug,), {}, params, CommodityDetailResponse)

    def series(
        self,
        slug: str,
        *,
        type: SeriesType | str,
        start_date: DateLike | None = None,
        end_date: DateLike | None = None,
        frequency: Frequency | str | None = None,
        transform: Transform | str | None = None,
        limit: int | None = None,
        sort_order: SortOrder | str | None = None,
        currency: str | None = None,
        unit: str | None = None,
        **params: Any,
    ) -> Series:
        """A time series (default: the last year); ``.data``, ``.meta``, ``.to_pandas()``, ``.to_polars()``.

        ``currency`` (``"EUR"``) converts a price with the exchange rate of each point's own date (or
        the average of its week's or month's rates); ``unit`` converts to another measure (``"t"``,
        ``"kg"``, ``"bu"``...) or to a price unit (``"USc/bu"``, ``"EUR/t"``). ``.unit`` is then the
        unit served, ``.conversion`` the working; a point without a rate has ``value`` None (NaN in
        pandas). An unknown currency or a unit that does not fit is a BadRequestError naming it.
        """
        known = {
            "type_": _enum(SeriesType, type),
            "start_date": _date(start_date),
            "end_date": _date(end_date),
            "frequency": _enum(Frequency, frequency),
            "transform": _enum(Transform, transform),
            "limit": _unset(limit),
            "sort_order": _enum(SortOrder, sort_order),
            "currency": _unset(currency),
            "unit": _unset(unit),
        }
        return Series(self._call(get_series, (slug,), known, params, SeriesResponse))

    def latest(self, slug: str, *, type: SeriesType | str = "price", **params: Any) -> TimeSeriesPoint | None:
        """The newest point of a series, however old (two requests), or None when the commodity has no such series."""
        wanted = _enum(SeriesType, type)
        detail = self.commodity(slug)
        newest = next((s.last_date for s in detail.data.available_series or [] if s.type_.value == wanted.value), None)
        if newest is None:
            return None
        points = self.series(slug, type=wanted, start_date=newest, end_date=newest, **params).data
        return points[-1] if points else None

    def cot(
        self,
        slug: str,
        *,
        format: CotFormat | str | None = None,
        scope: CotScope | str | None = None,
        start_date: DateLike | None = None,
        end_date: DateLike | None = None,
        sort_order: SortOrder | str | None = None,
        include: str | list[str] | None = None,
        index_weeks: int | None = None,
        per_page: int | None = 100,
        page: int = 1,
        **params: Any,
    ) -> CotPager:
        """COT reports (newest first by default) across pages: iterate, ``.first()``, ``.to_pandas()``, ``.to_polars()``.

        ``format`` is ``legacy`` (default), ``disaggregated`` or ``cit`` (the Commodity Index Trader
        supplement, 13 agricultural markets); ``scope`` is ``futures_only`` (default) or
        ``futures_and_options`` (the combined reports; cit's only scope). Each report names its scope,
        and ``failed_checks`` when it failed a consistency check.
        """
        known = {
            "format_": _enum(CotFormat, format),
            "scope": _enum(CotScope, scope),
            "start_date": _date(start_date),
            "end_date": _date(end_date),
            "sort_order": _enum(SortOrder, sort_order),
            "include": _unset(",".join(include) if isinstance(include, list) else include),
            "index_weeks": _unset(index_weeks),
            "per_page": _unset(per_page),
        }

        def fetch(number: int) -> CotResponse:
            return self._call(get_cot_reports, (slug,), {**known, "page": number}, params, CotResponse)

        return CotPager(fetch, page)

    def supply_demand(
        self,
        slug: str,
        *,
        region: str | None = None,
        marketing_year: str | None = None,
        attribute: str | None = None,
        view: GetSupplyDemandView | str | None = None,
        as_of: DateLike | datetime.datetime | None = None,
        first_release: bool | None = None,
        include: GetSupplyDemandInclude | str | None = None,
        per_page: int | None = 100,
        page: int = 1,
        **params: Any,
    ) -> SupplyDemandPager:
        """Supply and demand (WASDE) figures across pages: ``.data``, iterate, ``.to_pandas()``, ``.to_polars()``.

        ``region`` is ``united_states`` (default), ``world`` or a country or group of the world tables;
        ``marketing_year`` ``YYYY/YY`` (``"2026/27"``); ``attribute`` a row in snake_case
        (``ending_stocks``, or the derived ``stocks_to_use``). ``view="editions"`` (with marketing_year
        and attribute) gives one figure across every edition, oldest first, each with its ``change``;
        ``as_of`` (a date, or an aware datetime) the editions released by then; ``first_release=True``
        each figure as first published; ``include="revisions"`` the earlier versions. Each figure
        carries its unit as USDA states it (docs/supply-demand.md).
        """
        known = {
            "region": _unset(region),
            "marketing_year": _unset(marketing_year),
            "attribute": _unset(attribute),
            "view": _enum(GetSupplyDemandView, view),
            "as_of": UNSET if as_of is None else _query_value(as_of),
            "first_release": _unset(first_release),
            "include": _enum(GetSupplyDemandInclude, include),
            "per_page": _unset(per_page),
        }

        def fetch(number: int) -> SupplyDemandResponse:
            return self._call(get_supply_demand, (slug,), {**known, "page": number}, params, SupplyDemandResponse)

        return SupplyDemandPager(fetch, page)

    def status(self) -> StatusResponse:
        """Where each source stands (no key needed, but sent)."""
        return self._call(get_status, (), {}, {}, StatusResponse)

    def datasets(self) -> DatasetsResponse:
        """Every dataset: its condition over the last 90 days, last and next release, lag per month; and the incidents."""
        return self._call(list_datasets, (), {}, {}, DatasetsResponse)

    def releases(
        self,
        dataset: DatasetId | str,
        *,
        start_date: DateLike | None = None,
        end_date: DateLike | None = None,
        status: ListReleasesStatus | str | None = None,
        per_page: int | None = 100,
        page: int = 1,
        **params: Any,
    ) -> ReleasesResponse:
        """One page of a dataset's releases against the agency's calendar (``status="shifted"``: the
        ones a holiday or a shutdown moved); ``.meta.freshness`` gives the p50 and p95 lag per month."""
        known = {
            "dataset": _enum(DatasetId, dataset),
            "start_date": _date(start_date),
            "end_date": _date(end_date),
            "status": _enum(ListReleasesStatus, status),
            "per_page": _unset(per_page),
            "page": page,
        }
        return self._call(list_releases, (), known, params, ReleasesResponse)

    def bulk_files(self) -> BulkListResponse:
        """The bulk files and their manifests (``.data``: file, format, rows, sha256, plans, ...)."""
        return self._call(list_bulk_files, (), {}, {}, BulkListResponse)

    # --- one call: the request, 429 retries, typed errors -----------------------------------------

    def _call(
        self,
        operation: ModuleType,
        path: tuple[Any, ...],
        known: Mapping[str, Any],
        extra: Mapping[str, Any],
        model: type[M],
    ) -> M:
        build: Callable[..., dict[str, Any]] = operation._get_kwargs
        request = build(*path, **known)
        query = request.setdefault("params", {})
        for name, value in extra.items():
            if value is not None:
                query[name] = _query_value(value)
        try:
            response = self._send(request)
        except CommodityDataError as err:
            _scrub(err, self.lowlevel.token)
            raise
        parsed = operation._parse_response(client=self.lowlevel, response=response)
        if not isinstance(parsed, model):
            raise TypeError(f"unexpected answer to {request['url']}: {type(parsed).__name__}")
        return parsed

    def _send(self, request: dict[str, Any]) -> httpx.Response:
        http = self.lowlevel.get_httpx_client()
        ends = time.monotonic() + self.deadline
        attempt = 0
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                raise APIConnectionError(f"{request['url']}: no answer within the deadline of {self.deadline} s")
            try:
                response = http.request(**request, timeout=httpx.Timeout(min(self.timeout, left)))
            except httpx.TimeoutException as err:
                raise APIConnectionError(f"{request['url']}: timed out ({err})") from err
            except httpx.HTTPError as err:
                raise APIConnectionError(f"{request['url']}: {err}") from err
            if response.is_success:
                return response
            error = error_from_response(response)
            if isinstance(error, RateLimitError) and attempt < self.max_retries:
                wait = error.retry_after if error.retry_after is not None else 1.0
                if wait <= self.max_retry_wait and time.monotonic() + wait < ends:
                    attempt += 1
                    time.sleep(wait)
                    continue
            raise error
