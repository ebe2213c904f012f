from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="DisaggregatedCotIndex")


@_attrs_define
class DisaggregatedCotIndex:
    """Present with include=cot_index when the commodity has at least index_weeks reports in this format up to and
    including this one (absent before). For each group: (net - min) / (max - min) × 100 over the group's net in those
    index_weeks reports, rounded to one decimal half away from zero; null when max = min (every net in the window is the
    same). Example: nets 10, 30, 20 with index_weeks 3 → (20 - 10) / (30 - 10) × 100 = 50.

        Attributes:
            producer_merchant (float | None):
            swap_dealer (float | None):
            managed_money (float | None):
            other_reportable (float | None):
    """

    producer_merchant: float | None
    swap_dealer: float | None
    managed_money: float | None
    other_reportable: float | None

    def to_dict(self) -> dict[str, Any]:
        producer_merchant: float | None
        producer_merchant = self.producer_merchant

        swap_dealer: float | None
        swap_dealer = self.swap_dealer

        managed_money: float | None
        managed_money = self.managed_money

        other_reportable: float | None
        other_reportable = self.other_reportable

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "producer_merchant": producer_merchant,
                "swap_dealer": swap_dealer,
                "managed_money": managed_money,
                "other_reportable": other_reportable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_producer_merchant(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        producer_merchant = _parse_producer_merchant(d.pop("producer_merchant"))

        def _parse_swap_dealer(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        swap_dealer = _parse_swap_dealer(d.pop("swap_dealer"))

        def _parse_managed_money(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        managed_money = _parse_managed_money(d.pop("managed_money"))

        def _parse_other_reportable(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        other_reportable = _parse_other_reportable(d.pop("other_reportable"))

        disaggregated_cot_index = cls(
            producer_merchant=producer_merchant,
            swap_dealer=swap_dealer,
            managed_money=managed_money,
            other_reportable=other_reportable,
        )

        return disaggregated_cot_index
