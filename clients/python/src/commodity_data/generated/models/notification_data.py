from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.cot_format import CotFormat
from ..models.cot_scope import CotScope
from ..models.notification_data_topic import NotificationDataTopic
from ..models.series_type import SeriesType
from ..types import UNSET, Unset

T = TypeVar("T", bound="NotificationData")


@_attrs_define
class NotificationData:
    """
    Attributes:
        commodity (str): Commodity identifier in UPPER_SNAKE_CASE, used as {slug} in paths.
        topic (NotificationDataTopic): The series type, or the COT dataset (cot_legacy, cot_disaggregated,
            cot_legacy_combined, …).
        first_date (datetime.date): A calendar date, YYYY-MM-DD.
        newest_date (datetime.date): A calendar date, YYYY-MM-DD.
        landed_at (datetime.datetime): When the data became readable through the API.
        url (str): The API request that fetches exactly the changed dates.
        series_type (SeriesType | Unset): A time series type served by GET /commodities/{slug}/series.
        format_ (CotFormat | Unset): COT report format: legacy, disaggregated, or cit (the Supplemental report:
            Commodity Index Trader positions).
        scope (CotScope | Unset): What a COT report counts: futures_only, or futures_and_options (futures plus delta-
            adjusted options, the CFTC's combined reports; the CIT supplement is published combined only).
    """

    commodity: str
    topic: NotificationDataTopic
    first_date: datetime.date
    newest_date: datetime.date
    landed_at: datetime.datetime
    url: str
    series_type: SeriesType | Unset = UNSET
    format_: CotFormat | Unset = UNSET
    scope: CotScope | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        commodity = self.commodity

        topic = self.topic.value

        first_date = self.first_date.isoformat()

        newest_date = self.newest_date.isoformat()

        landed_at = self.landed_at.isoformat()

        url = self.url

        series_type: str | Unset = UNSET
        if not isinstance(self.series_type, Unset):
            series_type = self.series_type.value

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value

        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "commodity": commodity,
                "topic": topic,
                "first_date": first_date,
                "newest_date": newest_date,
                "landed_at": landed_at,
                "url": url,
            }
        )
        if series_type is not UNSET:
            field_dict["series_type"] = series_type
        if format_ is not UNSET:
            field_dict["format"] = format_
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        commodity = d.pop("commodity")

        topic = NotificationDataTopic(d.pop("topic"))

        first_date = datetime.date.fromisoformat(d.pop("first_date"))

        newest_date = datetime.date.fromisoformat(d.pop("newest_date"))

        landed_at = datetime.datetime.fromisoformat(d.pop("landed_at"))

        url = d.pop("url")

        _series_type = d.pop("series_type", UNSET)
        series_type: SeriesType | Unset
        if isinstance(_series_type, Unset):
            series_type = UNSET
        else:
            series_type = SeriesType(_series_type)

        _format_ = d.pop("format", UNSET)
        format_: CotFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = CotFormat(_format_)

        _scope = d.pop("scope", UNSET)
        scope: CotScope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = CotScope(_scope)

        notification_data = cls(
            commodity=commodity,
            topic=topic,
            first_date=first_date,
            newest_date=newest_date,
            landed_at=landed_at,
            url=url,
            series_type=series_type,
            format_=format_,
            scope=scope,
        )

        return notification_data
