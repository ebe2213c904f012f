from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.cit_cot_report import CitCotReport
    from ..models.cot_meta import CotMeta
    from ..models.disaggregated_cot_report import DisaggregatedCotReport
    from ..models.legacy_cot_report import LegacyCotReport


T = TypeVar("T", bound="CotResponse")


@_attrs_define
class CotResponse:
    """
    Attributes:
        data (list[CitCotReport | DisaggregatedCotReport | LegacyCotReport]):
        meta (CotMeta): Pagination of the COT reports (total_pages = ceil(total / per_page)) and, with as_of, its
            instant.
    """

    data: list[CitCotReport | DisaggregatedCotReport | LegacyCotReport]
    meta: CotMeta

    def to_dict(self) -> dict[str, Any]:
        from ..models.disaggregated_cot_report import DisaggregatedCotReport
        from ..models.legacy_cot_report import LegacyCotReport

        data = []
        for data_item_data in self.data:
            data_item: dict[str, Any]
            if isinstance(data_item_data, LegacyCotReport) or isinstance(
                data_item_data, DisaggregatedCotReport
            ):
                data_item = data_item_data.to_dict()
            else:
                data_item = data_item_data.to_dict()

            data.append(data_item)

        meta = self.meta.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "data": data,
                "meta": meta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cit_cot_report import CitCotReport
        from ..models.cot_meta import CotMeta
        from ..models.disaggregated_cot_report import DisaggregatedCotReport
        from ..models.legacy_cot_report import LegacyCotReport

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:

            def _parse_data_item(
                data: object,
            ) -> CitCotReport | DisaggregatedCotReport | LegacyCotReport:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_cot_report_type_0 = LegacyCotReport.from_dict(
                        data
                    )

                    return componentsschemas_cot_report_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_cot_report_type_1 = (
                        DisaggregatedCotReport.from_dict(data)
                    )

                    return componentsschemas_cot_report_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_cot_report_type_2 = CitCotReport.from_dict(data)

                return componentsschemas_cot_report_type_2

            data_item = _parse_data_item(data_item_data)

            data.append(data_item)

        meta = CotMeta.from_dict(d.pop("meta"))

        cot_response = cls(
            data=data,
            meta=meta,
        )

        return cot_response
