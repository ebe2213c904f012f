from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cot_group_pct_of_oi import CotGroupPctOfOi
    from ..models.cot_group_pct_of_oi_with_spreading import CotGroupPctOfOiWithSpreading


T = TypeVar("T", bound="CitCotPctOfOi")


@_attrs_define
class CitCotPctOfOi:
    """Present with include=pct_of_oi when open_interest is above 0. Example: long 123,456 of open interest 400,000 → 30.9
    (30.864); 0.05 % would print 0.1 (half away from zero).

        Attributes:
            commercial (CotGroupPctOfOi): A group's long and short as a percent of open interest: round(100 × value /
                open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell: docs/decisions.md).
                Can exceed 100 only if the source does.
            non_commercial (CotGroupPctOfOiWithSpreading): A group's long, short and spreading as a percent of open
                interest: round(100 × value / open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one
                published cell: docs/decisions.md).
            index_traders (CotGroupPctOfOi): A group's long and short as a percent of open interest: round(100 × value /
                open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell: docs/decisions.md).
                Can exceed 100 only if the source does.
            non_reportable (CotGroupPctOfOi): A group's long and short as a percent of open interest: round(100 × value /
                open_interest, 1), half away from zero (as the CFTC % of OI columns, bar one published cell: docs/decisions.md).
                Can exceed 100 only if the source does.
    """

    commercial: CotGroupPctOfOi
    non_commercial: CotGroupPctOfOiWithSpreading
    index_traders: CotGroupPctOfOi
    non_reportable: CotGroupPctOfOi

    def to_dict(self) -> dict[str, Any]:
        commercial = self.commercial.to_dict()

        non_commercial = self.non_commercial.to_dict()

        index_traders = self.index_traders.to_dict()

        non_reportable = self.non_reportable.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "commercial": commercial,
                "non_commercial": non_commercial,
                "index_traders": index_traders,
                "non_reportable": non_reportable,
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
        commercial = CotGroupPctOfOi.from_dict(d.pop("commercial"))

        non_commercial = CotGroupPctOfOiWithSpreading.from_dict(d.pop("non_commercial"))

        index_traders = CotGroupPctOfOi.from_dict(d.pop("index_traders"))

        non_reportable = CotGroupPctOfOi.from_dict(d.pop("non_reportable"))

        cit_cot_pct_of_oi = cls(
            commercial=commercial,
            non_commercial=non_commercial,
            index_traders=index_traders,
            non_reportable=non_reportable,
        )

        return cit_cot_pct_of_oi
