from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.supply_demand_status import SupplyDemandStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="SupplyDemandRevision")


@_attrs_define
class SupplyDemandRevision:
    """An earlier version of a figure (include=revisions), with the edition that published it.

    Attributes:
        value (float):
        edition (str): The WASDE edition (the month of the report), YYYY-MM.
        published_at (datetime.datetime): When this version was published (RFC 3339): 12:00 New York on the edition
            release date, or the time of a corrected re-post.
        status (SupplyDemandStatus): estimate (a year WASDE marks "Est.", or a past year without a mark) or projection
            (a year marked "Proj.").
        published_at_estimated (bool | Unset): Present (true) when published_at comes from the release calendar, not the
            source.
    """

    value: float
    edition: str
    published_at: datetime.datetime
    status: SupplyDemandStatus
    published_at_estimated: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        value = self.value

        edition = self.edition

        published_at = self.published_at.isoformat()

        status = self.status.value

        published_at_estimated = self.published_at_estimated

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "value": value,
                "edition": edition,
                "published_at": published_at,
                "status": status,
            }
        )
        if published_at_estimated is not UNSET:
            field_dict["published_at_estimated"] = published_at_estimated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        value = d.pop("value")

        edition = d.pop("edition")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        status = SupplyDemandStatus(d.pop("status"))

        published_at_estimated = d.pop("published_at_estimated", UNSET)

        supply_demand_revision = cls(
            value=value,
            edition=edition,
            published_at=published_at,
            status=status,
            published_at_estimated=published_at_estimated,
        )

        return supply_demand_revision
