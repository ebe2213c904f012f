"""Automatic pagination over the API's page/per_page lists, and the series answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from . import _frames
from .generated.models.pagination_meta import PaginationMeta
from .generated.models.series_meta import SeriesMeta
from .generated.models.series_response import SeriesResponse
from .generated.models.supply_demand_figure import SupplyDemandFigure
from .generated.models.supply_demand_meta import SupplyDemandMeta
from .generated.models.time_series_point import TimeSeriesPoint
from .generated.types import Unset

T = TypeVar("T")


class _Page(Protocol[T]):  # CommodityListResponse, CotResponse
    data: list[T]
    meta: PaginationMeta


class Pager(Generic[T]):
    """Every item of a list endpoint, across its pages, fetched lazily one page at a time.

    Iterating yields every item from ``start_page`` to the last page (``meta.total_pages``), with
    the same filters on every request. ``first()`` fetches one page only; ``pages()`` yields the
    answers themselves (``.data``, ``.meta``).
    """

    def __init__(self, fetch: Callable[[int], _Page[T]], start_page: int = 1) -> None:
        self._fetch = fetch
        self._start = start_page
        self._first: _Page[T] | None = None

    def _first_page(self) -> _Page[T]:
        if self._first is None:
            self._first = self._fetch(self._start)
        return self._first

    def pages(self) -> Iterator[_Page[T]]:
        page = self._first_page()
        number = self._start
        while True:
            yield page
            # Past the last page the API answers 200 with no data: either ends the walk.
            if not page.data or number >= page.meta.total_pages:
                return
            number += 1
            page = self._fetch(number)

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data

    def first(self) -> T | None:
        """The first item (one request), or None when there is none."""
        data = self._first_page().data
        return data[0] if data else None

    @property
    def total(self) -> int:
        """How many items match, over all pages (from the first page's ``meta.total``)."""
        return self._first_page().meta.total

    def to_list(self) -> list[T]:
        return list(self)


class CotPager(Pager[Any]):
    """COT reports across pages (newest first unless ``sort_order="asc"``), with DataFrames of all of them."""

    _DATES = ("report_date",)

    def to_pandas(self) -> Any:
        """Every report as a pandas DataFrame, nested groups flattened (``commercial_net``)."""
        return _frames.to_pandas((r.to_dict() for r in self), self._DATES)

    def to_polars(self) -> Any:
        """Every report as a polars DataFrame, nested groups flattened (``commercial_net``)."""
        return _frames.to_polars((r.to_dict() for r in self), self._DATES)


class SupplyDemandPager(Pager[SupplyDemandFigure]):
    """Supply and demand figures across pages: iterate, ``.data`` (every figure of every page),
    ``.meta`` (the first page's: region, view, total, attribution), ``.to_pandas()``, ``.to_polars()``.

    The frames hold one row per figure with its unit (a balance sheet mixes acres, bushels, dollars
    and ratios): marketing_year, region, attribute, value, unit, edition, published_at, status,
    derived, change, failed_checks.
    """

    COLUMNS = (
        "marketing_year",
        "region",
        "attribute",
        "value",
        "unit",
        "edition",
        "published_at",
        "status",
        "derived",
        "change",
        "failed_checks",
    )
    _INSTANTS = ("published_at",)

    def __init__(self, fetch: Callable[[int], Any], start_page: int = 1) -> None:
        super().__init__(fetch, start_page)
        self._all: list[SupplyDemandFigure] | None = None

    @property
    def data(self) -> list[SupplyDemandFigure]:
        """Every figure, from the start page to the last one (fetched once, then kept)."""
        if self._all is None:
            self._all = list(super().__iter__())
        return self._all

    def __iter__(self) -> Iterator[SupplyDemandFigure]:
        return iter(self.data)

    @property
    def meta(self) -> SupplyDemandMeta:
        meta: SupplyDemandMeta = self._first_page().meta  # type: ignore[assignment]
        return meta

    def _rows(self) -> list[dict[str, Any]]:
        return [_figure_row(f) for f in self.data]

    def to_pandas(self) -> Any:
        """Every figure as a pandas DataFrame (``published_at`` as a UTC datetime64), one row per figure."""
        return _frames.to_pandas(self._rows(), (), self._INSTANTS, self.COLUMNS)

    def to_polars(self) -> Any:
        """Every figure as a polars DataFrame (``published_at`` as a UTC pl.Datetime), one row per figure."""
        return _frames.to_polars(self._rows(), (), self._INSTANTS, self.COLUMNS)


def _figure_row(f: SupplyDemandFigure) -> dict[str, Any]:
    def given(value: Any) -> Any:
        return None if isinstance(value, Unset) else value

    checks = given(f.failed_checks)
    return {
        "marketing_year": f.marketing_year,
        "region": f.region,
        "attribute": f.attribute,
        "value": f.value,
        "unit": f.unit,
        "edition": f.edition,
        "published_at": f.published_at.isoformat(),
        "status": f.status.value,
        "derived": given(f.derived) is True,
        "change": given(f.change),
        "failed_checks": ",".join(c.value for c in checks) if checks else None,
    }


class Series:
    """A time series answer: ``data`` (the points), ``meta`` (unit, frequency, source...).

    ``unit`` is the unit of the values as served (``meta.unit``: ``EUR/t`` after
    ``currency="EUR", unit="t"``), and ``conversion`` the working of a conversion (``meta.conversion``
    as a dict: from, to, the unit factor, the rates and their rule, the attribution), or None.
    """

    _DATES = ("date", "fx_rate_date")
    #: A converted point without a rate has a null value: NaN in pandas, null in polars.
    _FLOATS = ("value", "open", "high", "low", "close", "fx_rate")

    def __init__(self, response: SeriesResponse) -> None:
        self.response = response
        self.data: list[TimeSeriesPoint] = response.data
        self.meta: SeriesMeta = response.meta

    def __iter__(self) -> Iterator[TimeSeriesPoint]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<Series {self.meta.commodity_id} {self.meta.type.value}: {len(self.data)} points>"

    @property
    def unit(self) -> str | None:
        """The unit of the values as served, or None when the answer states none."""
        unit = self.meta.unit
        return None if isinstance(unit, Unset) else unit

    @property
    def conversion(self) -> dict[str, Any] | None:
        """``meta.conversion`` as the API wrote it (a dict), or None when nothing was converted."""
        conversion = self.meta.conversion
        return None if isinstance(conversion, Unset) else conversion.to_dict()

    def to_pandas(self) -> Any:
        """The points as a pandas DataFrame (``date`` as datetime64, then ``value``, ...).

        ``df.attrs["unit"]`` is the unit of the values and, when converted, ``df.attrs["conversion"]``
        the working (see ``conversion``); a point without a rate has NaN for its value. pandas keeps
        ``attrs`` through most operations on one frame, not through every merge or concat.
        """
        frame = _frames.to_pandas((p.to_dict() for p in self.data), self._DATES, float_columns=self._FLOATS)
        frame.attrs["unit"] = self.unit
        if self.conversion is not None:
            frame.attrs["conversion"] = self.conversion
        return frame

    def to_polars(self) -> Any:
        """The points as a polars DataFrame (``date`` as pl.Date, then ``value``, ..., ``unit``).

        A polars frame has no place for metadata: the unit of the values is its last column, ``unit``
        (the same on every row, so it survives joins and concats); the working of a conversion is
        ``series.conversion``. A point without a rate has a null value.
        """
        frame = _frames.to_polars((p.to_dict() for p in self.data), self._DATES, float_columns=self._FLOATS)
        import polars as pl  # there: _frames.to_polars said how to install it when it is missing

        return frame.with_columns(pl.lit(self.unit, dtype=pl.String).alias("unit"))
