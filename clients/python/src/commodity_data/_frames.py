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


def to_pandas(records: Iterable[Mapping[str, Any]], date_columns: tuple[str, ...]) -> Any:
    try:
        import pandas as pd
    except ImportError as err:
        raise ImportError("to_pandas() needs pandas: pip install 'commodity-data[pandas]'") from err
    rows = [flatten(r) for r in records]
    frame = pd.DataFrame(rows, columns=_columns(rows))
    for col in date_columns:
        if col in frame.columns:
            frame[col] = pd.to_datetime(frame[col], format="%Y-%m-%d")
    return frame


def to_polars(records: Iterable[Mapping[str, Any]], date_columns: tuple[str, ...]) -> Any:
    try:
        import polars as pl
    except ImportError as err:
        raise ImportError("to_polars() needs polars: pip install 'commodity-data[polars]'") from err
    rows = [flatten(r) for r in records]
    columns = _columns(rows)
    frame = pl.DataFrame([{c: row.get(c) for c in columns} for row in rows], infer_schema_length=None)
    dates = [pl.col(c).str.to_date("%Y-%m-%d") for c in date_columns if c in frame.columns]
    return frame.with_columns(dates) if dates else frame
