"""DataFrames of series points and COT reports (the optional pandas and polars extras)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """One flat row: nested groups become ``group_field`` columns (``commercial_net``)."""
    row: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            row.update(flatten(value, f"{name}_"))
        else:
            row[name] = value
    return row


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    # Optional fields are absent from some rows: the union of columns, in first-seen order.
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            seen.setdefault(key, None)
    return list(seen)


def to_pandas(
    records: Iterable[Mapping[str, Any]],
    date_columns: tuple[str, ...],
    instant_columns: tuple[str, ...] = (),
    columns: tuple[str, ...] | None = None,
    float_columns: tuple[str, ...] = (),
) -> Any:
    """A DataFrame of the records: ``date_columns`` (YYYY-MM-DD) as datetime64, ``instant_columns``
    (RFC 3339) as UTC datetime64, ``float_columns`` as float64 (a null is NaN, even in a column of
    nulls only); ``columns`` fixes the columns (their order, even with no rows)."""
    try:
        import pandas as pd
    except ImportError as err:
        raise ImportError("to_pandas() needs pandas: pip install 'commodity-data[pandas]'") from err
    rows = [flatten(r) for r in records]
    frame = pd.DataFrame(rows, columns=list(columns) if columns is not None else _columns(rows))
    for col in date_columns:
        if col in frame.columns:
            frame[col] = pd.to_datetime(frame[col], format="%Y-%m-%d")
    for col in instant_columns:
        if col in frame.columns:
            frame[col] = pd.to_datetime(frame[col], utc=True, format="ISO8601")
    for col in float_columns:
        if col in frame.columns:
            frame[col] = frame[col].astype("float64")
    return frame


def to_polars(
    records: Iterable[Mapping[str, Any]],
    date_columns: tuple[str, ...],
    instant_columns: tuple[str, ...] = (),
    columns: tuple[str, ...] | None = None,
    float_columns: tuple[str, ...] = (),
) -> Any:
    """As to_pandas: dates as pl.Date, instants as UTC pl.Datetime, ``float_columns`` as pl.Float64
    (a null stays null)."""
    try:
        import polars as pl
    except ImportError as err:
        raise ImportError("to_polars() needs polars: pip install 'commodity-data[polars]'") from err
    rows = [flatten(r) for r in records]
    names = list(columns) if columns is not None else _columns(rows)
    frame = pl.DataFrame([{c: row.get(c) for c in names} for row in rows], infer_schema_length=None)
    if frame.width == 0:
        frame = pl.DataFrame({c: [] for c in names})
    casts = [pl.col(c).str.to_date("%Y-%m-%d") for c in date_columns if c in frame.columns]
    casts += [pl.col(c).str.to_datetime(time_zone="UTC") for c in instant_columns if c in frame.columns and rows]
    casts += [pl.col(c).cast(pl.Float64) for c in float_columns if c in frame.columns]
    return frame.with_columns(casts) if casts else frame
