from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cot_group_pct_of_oi import CotGroupPctOfOi
    from ..models.cot_group_pct_of_oi_with_spreading import CotGroupPctOfOiWithSpreading


T = TypeVar("T", bound="DisaggregatedCotPctOfOi")


@_attrs_define
class DisaggregatedCotPctOfOi:
    """Present with include=pct_of_oi when open_interest is above 0. Example: long 123,456 of open interest 400,000 → 30.9
    (30.864); 0.05 % would print 0.1 (half away from zero).

        Attributes:
            producer_merchant (CotGroupPctOfOi): A group's long and short as a percent of open interest: round(100 × value /
                open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell: docs/decisions.md).
                Can exceed 100 only if the source does.
            swap_dealer (CotGroupPctOfOiWithSpreading): A group's long, short and spreading as a percent of open interest:
                round(100 × value / open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell:
                docs/decisions.md).
            managed_money (CotGroupPctOfOiWithSpreading): A group's long, short and spreading as a percent of open interest:
                round(100 × value / open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell:
                docs/decisions.md).
            other_reportable (CotGroupPctOfOiWithSpreading): A group's long, short and spreading as a percent of open
                interest: round(100 × value / open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one
                published cell: docs/decisions.md).
    """

    producer_merchant: CotGroupPctOfOi
    swap_dealer: CotGroupPctOfOiWithSpreading
    managed_money: CotGroupPctOfOiWithSpreading
    other_reportable: CotGroupPctOfOiWithSpreading

    def to_dict(self) -> dict[str, Any]:
        producer_merchant = self.producer_merchant.to_dict()

        swap_dealer = self.swap_dealer.to_dict()

        managed_money = self.managed_money.to_dict()

        other_reportable = self.other_reportable.to_dict()

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
        from ..models.cot_group_pct_of_oi import CotGroupPctOfOi
        from ..models.cot_group_pct_of_oi_with_spreading import (
            CotGroupPctOfOiWithSpreading,
        )

        d = dict(src_dict)
        producer_merchant = CotGroupPctOfOi.from_dict(d.pop("producer_merchant"))

        swap_dealer = CotGroupPctOfOiWithSpreading.from_dict(d.pop("swap_dealer"))

        managed_money = CotGroupPctOfOiWithSpreading.from_dict(d.pop("managed_money"))

        other_reportable = CotGroupPctOfOiWithSpreading.from_dict(
            d.pop("other_reportable")
        )

        disaggregated_cot_pct_of_oi = cls(
            producer_merchant=producer_merchant,
            swap_dealer=swap_dealer,
            managed_money=managed_money,
            other_reportable=other_reportable,
        )

        return disaggregated_cot_pct_of_oi
