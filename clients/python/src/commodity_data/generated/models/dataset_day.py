from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.dataset_condition import DatasetCondition

if TYPE_CHECKING:
    from ..models.condition_reason import ConditionReason


T = TypeVar("T", bound="DatasetDay")


@_attrs_define
class DatasetDay:
    """One day's condition of a dataset.

    Attributes:
        date (datetime.date): A day in America/New_York.
        condition (DatasetCondition): A dataset's condition on a day: `missing` (a release due that day was not served
            within 7 days of its time), `late` (it was served after its time plus the grace, or is still not served),
            `degraded` (a consistency check failed on the data it carried, or the source answered errors that day), else
            `available` (a cancelled release leaves the day available).
        reasons (list[ConditionReason]):
    """

    date: datetime.date
    condition: DatasetCondition
    reasons: list[ConditionReason]

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        condition = self.condition.value

        reasons = []
        for reasons_item_data in self.reasons:
            reasons_item = reasons_item_data.to_dict()
            reasons.append(reasons_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "date": date,
                "condition": condition,
                "reasons": reasons,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.condition_reason import ConditionReason

        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        condition = DatasetCondition(d.pop("condition"))

        reasons = []
        _reasons = d.pop("reasons")
        for reasons_item_data in _reasons:
            reasons_item = ConditionReason.from_dict(reasons_item_data)

            reasons.append(reasons_item)

        dataset_day = cls(
            date=date,
            condition=condition,
            reasons=reasons,
        )

        return dataset_day
