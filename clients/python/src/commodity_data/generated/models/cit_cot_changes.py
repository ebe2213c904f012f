from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cot_group_change import CotGroupChange
    from ..models.cot_group_change_with_spreading import CotGroupChangeWithSpreading


T = TypeVar("T", bound="CitCotChanges")


@_attrs_define
class CitCotChanges:
    """Present with include=changes, except on the first report of the commodity in this format. Each value is this
    report's minus the previous report's (the previous report of the same commodity and format, even when it lies
    outside the requested dates or page); net = long - short, so its change is the change of long minus that of short.
    Example: previous commercial long 100, short 250; this report 120, 240 → {long: 20, short: -10, net: 30}.

        Attributes:
            open_interest (int):
            commercial (CotGroupChange): Change of a group's long, short and net since the previous report (this minus
                previous).
            non_commercial (CotGroupChangeWithSpreading): Change of a group's long, short, spreading and net since the
                previous report (this minus previous).
            index_traders (CotGroupChange): Change of a group's long, short and net since the previous report (this minus
                previous).
            non_reportable (CotGroupChange): Change of a group's long, short and net since the previous report (this minus
                previous).
    """

    open_interest: int
    commercial: CotGroupChange
    non_commercial: CotGroupChangeWithSpreading
    index_traders: CotGroupChange
    non_reportable: CotGroupChange

    def to_dict(self) -> dict[str, Any]:
        open_interest = self.open_interest

        commercial = self.commercial.to_dict()

        non_commercial = self.non_commercial.to_dict()

        index_traders = self.index_traders.to_dict()

        non_reportable = self.non_reportable.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "open_interest": open_interest,
                "commercial": commercial,
                "non_commercial": non_commercial,
                "index_traders": index_traders,
                "non_reportable": non_reportable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cot_group_change import CotGroupChange
        from ..models.cot_group_change_with_spreading import CotGroupChangeWithSpreading

        d = dict(src_dict)
        open_interest = d.pop("open_interest")

        commercial = CotGroupChange.from_dict(d.pop("commercial"))

        non_commercial = CotGroupChangeWithSpreading.from_dict(d.pop("non_commercial"))

        index_traders = CotGroupChange.from_dict(d.pop("index_traders"))

        non_reportable = CotGroupChange.from_dict(d.pop("non_reportable"))

        cit_cot_changes = cls(
            open_interest=open_interest,
            commercial=commercial,
            non_commercial=non_commercial,
            index_traders=index_traders,
            non_reportable=non_reportable,
        )

        return cit_cot_changes
