from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cot_group_change import CotGroupChange
    from ..models.cot_group_change_with_spreading import CotGroupChangeWithSpreading


T = TypeVar("T", bound="DisaggregatedCotChanges")


@_attrs_define
class DisaggregatedCotChanges:
    """Present with include=changes, except on the first report of the commodity in this format. Each value is this
    report's minus the previous report's (the previous report of the same commodity and format, even when it lies
    outside the requested dates or page); net = long - short, so its change is the change of long minus that of short.
    Example: previous commercial long 100, short 250; this report 120, 240 → {long: 20, short: -10, net: 30}.

        Attributes:
            open_interest (int):
            producer_merchant (CotGroupChange): Change of a group's long, short and net since the previous report (this
                minus previous).
            swap_dealer (CotGroupChangeWithSpreading): Change of a group's long, short, spreading and net since the previous
                report (this minus previous).
            managed_money (CotGroupChangeWithSpreading): Change of a group's long, short, spreading and net since the
                previous report (this minus previous).
            other_reportable (CotGroupChangeWithSpreading): Change of a group's long, short, spreading and net since the
                previous report (this minus previous).
    """

    open_interest: int
    producer_merchant: CotGroupChange
    swap_dealer: CotGroupChangeWithSpreading
    managed_money: CotGroupChangeWithSpreading
    other_reportable: CotGroupChangeWithSpreading

    def to_dict(self) -> dict[str, Any]:
        open_interest = self.open_interest

        producer_merchant = self.producer_merchant.to_dict()

        swap_dealer = self.swap_dealer.to_dict()

        managed_money = self.managed_money.to_dict()

        other_reportable = self.other_reportable.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "open_interest": open_interest,
                "producer_merchant": producer_merchant,
                "swap_dealer": swap_dealer,
                "managed_money": managed_money,
                "other_reportable": other_reportable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cot_group_change import CotGroupChange
        from ..models.cot_group_change_with_spreading import CotGroupChangeWithSpreading

        d = dict(src_dict)
        open_interest = d.pop("open_interest")

        producer_merchant = CotGroupChange.from_dict(d.pop("producer_merchant"))

        swap_dealer = CotGroupChangeWithSpreading.from_dict(d.pop("swap_dealer"))

        managed_money = CotGroupChangeWithSpreading.from_dict(d.pop("managed_money"))

        other_reportable = CotGroupChangeWithSpreading.from_dict(
            d.pop("other_reportable")
        )

        disaggregated_cot_changes = cls(
            open_interest=open_interest,
            producer_merchant=producer_merchant,
            swap_dealer=swap_dealer,
            managed_money=managed_money,
            other_reportable=other_reportable,
        )

        return disaggregated_cot_changes
