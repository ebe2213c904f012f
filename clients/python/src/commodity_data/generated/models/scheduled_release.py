from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScheduledRelease")


@_attrs_define
class ScheduledRelease:
    """A release on the publisher's schedule.

    Attributes:
        report (str): The publication, e.g. "Commitments of Traders".
        at (datetime.datetime): When it is scheduled (RFC 3339, UTC).
        local_date (datetime.date): Its date in America/New_York, where the publishers release.
        local_time (str): Its time in America/New_York, HH:MM.
        data_date (datetime.date): The newest observation date the release carries: COT the Tuesday positions of its
            week, the EIA Weekly Petroleum Status Report the week ending the Friday before, NASS quarter-end Grain Stocks
            the first of their month, ECB the rates of the day of the release.
        shifted_by (str | Unset): The federal holiday that moved the release from its usual day, when one did.
    """

    report: str
    at: datetime.datetime
    local_date: datetime.date
    local_time: str
    data_date: datetime.date
    shifted_by: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        report = self.report

        at = self.at.isoformat()

        local_date = self.local_date.isoformat()

        local_time = self.local_time

        data_date = self.data_date.isoformat()

        shifted_by = self.shifted_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "report": report,
                "at": at,
                "local_date": local_date,
                "local_time": local_time,
                "data_date": data_date,
            }
        )
        if shifted_by is not UNSET:
            field_dict["shifted_by"] = shifted_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        report = d.pop("report")

        at = datetime.datetime.fromisoformat(d.pop("at"))

        local_date = datetime.date.fromisoformat(d.pop("local_date"))

        local_time = d.pop("local_time")

        data_date = datetime.date.fromisoformat(d.pop("data_date"))

        shifted_by = d.pop("shifted_by", UNSET)

        scheduled_release = cls(
            report=report,
            at=at,
            local_date=local_date,
            local_time=local_time,
            data_date=data_date,
            shifted_by=shifted_by,
        )

        return scheduled_release
