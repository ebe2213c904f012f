from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.bulk_file_dataset import BulkFileDataset
from ..models.bulk_file_format import BulkFileFormat
from ..models.bulk_file_plans_item import BulkFilePlansItem
from ..models.bulk_file_span import BulkFileSpan

T = TypeVar("T", bound="BulkFile")


@_attrs_define
class BulkFile:
    """The manifest entry of one bulk file.

    Attributes:
        file (str): The file name: GET /bulk/{file} downloads it.
        dataset (BulkFileDataset): A series type, a COT dataset (cot_legacy, cot_cit, …), or supply_demand (one row per
            figure of a balance sheet in force: commodity, region, marketing_year, attribute, value, unit, edition,
            published_at, status).
        span (BulkFileSpan): full: every observation; recent: the last 12 months before generated_at (supply_demand: the
            figures published by the editions of those months).
        format_ (BulkFileFormat): csv.gz: gzipped CSV with a header row; parquet: Apache Parquet.
        rows (int):
        bytes_ (int):
        sha256 (str): SHA-256 of the file (hex); also its strong ETag.
        first_date (datetime.date): A calendar date, YYYY-MM-DD.
        last_date (datetime.date): A calendar date, YYYY-MM-DD.
        generated_at (datetime.datetime):
        columns (list[str]): The column names, in order.
        licence (list[str]): The licences of the sources the file holds data of.
        attribution (list[str]): How each source of the file asks to be cited.
        plans (list[BulkFilePlansItem]): The plans whose keys may download the file (others get 403).
    """

    file: str
    dataset: BulkFileDataset
    span: BulkFileSpan
    format_: BulkFileFormat
    rows: int
    bytes_: int
    sha256: str
    first_date: datetime.date
    last_date: datetime.date
    generated_at: datetime.datetime
    columns: list[str]
    licence: list[str]
    attribution: list[str]
    plans: list[BulkFilePlansItem]

    def to_dict(self) -> dict[str, Any]:
        file = self.file

        dataset = self.dataset.value

        span = self.span.value

        format_ = self.format_.value

        rows = self.rows

        bytes_ = self.bytes_

        sha256 = self.sha256

        first_date = self.first_date.isoformat()

        last_date = self.last_date.isoformat()

        generated_at = self.generated_at.isoformat()

        columns = self.columns

        licence = self.licence

        attribution = self.attribution

        plans = []
        for plans_item_data in self.plans:
            plans_item = plans_item_data.value
            plans.append(plans_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "file": file,
                "dataset": dataset,
                "span": span,
                "format": format_,
                "rows": rows,
                "bytes": bytes_,
                "sha256": sha256,
                "first_date": first_date,
                "last_date": last_date,
                "generated_at": generated_at,
                "columns": columns,
                "licence": licence,
                "attribution": attribution,
                "plans": plans,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        file = d.pop("file")

        dataset = BulkFileDataset(d.pop("dataset"))

        span = BulkFileSpan(d.pop("span"))

        format_ = BulkFileFormat(d.pop("format"))

        rows = d.pop("rows")

        bytes_ = d.pop("bytes")

        sha256 = d.pop("sha256")

        first_date = datetime.date.fromisoformat(d.pop("first_date"))

        last_date = datetime.date.fromisoformat(d.pop("last_date"))

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        columns = cast(list[str], d.pop("columns"))

        licence = cast(list[str], d.pop("licence"))

        attribution = cast(list[str], d.pop("attribution"))

        plans = []
        _plans = d.pop("plans")
        for plans_item_data in _plans:
            plans_item = BulkFilePlansItem(plans_item_data)

            plans.append(plans_item)

        bulk_file = cls(
            file=file,
            dataset=dataset,
            span=span,
            format_=format_,
            rows=rows,
            bytes_=bytes_,
            sha256=sha256,
            first_date=first_date,
            last_date=last_date,
            generated_at=generated_at,
            columns=columns,
            licence=licence,
            attribution=attribution,
            plans=plans,
        )

        return bulk_file
