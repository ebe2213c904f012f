from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CommodityIdentifiers")


@_attrs_define
class CommodityIdentifiers:
    """The commodity's identifiers at its official sources, so any number can be checked against the source a `source`
    field names.

        Attributes:
            cftc_contract_codes (list[str]): CFTC contract market codes (CFTC_Contract_Market_Code) of the commodity's COT
                reports.
            eia_series (list[str]): EIA API v2 series ids (the `series` facet), e.g. RWTC.
            nass_items (list[str]): USDA NASS Quick Stats data items (`short_desc`), e.g. "CORN, GRAIN - PRODUCTION,
                MEASURED IN BU".
            worldbank_series (list[str] | Unset): World Bank Pink Sheet series codes, e.g. GOLD, COFFEE_ARABIC.
            ams_reports (list[str] | Unset): USDA AMS market report ids, e.g. LM_CT150.
    """

    cftc_contract_codes: list[str]
    eia_series: list[str]
    nass_items: list[str]
    worldbank_series: list[str] | Unset = UNSET
    ams_reports: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cftc_contract_codes = self.cftc_contract_codes

        eia_series = self.eia_series

        nass_items = self.nass_items

        worldbank_series: list[str] | Unset = UNSET
        if not isinstance(self.worldbank_series, Unset):
            worldbank_series = self.worldbank_series

        ams_reports: list[str] | Unset = UNSET
        if not isinstance(self.ams_reports, Unset):
            ams_reports = self.ams_reports

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cftc_contract_codes": cftc_contract_codes,
                "eia_series": eia_series,
                "nass_items": nass_items,
            }
        )
        if worldbank_series is not UNSET:
            field_dict["worldbank_series"] = worldbank_series
        if ams_reports is not UNSET:
            field_dict["ams_reports"] = ams_reports

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cftc_contract_codes = cast(list[str], d.pop("cftc_contract_codes"))

        eia_series = cast(list[str], d.pop("eia_series"))

        nass_items = cast(list[str], d.pop("nass_items"))

        worldbank_series = cast(list[str], d.pop("worldbank_series", UNSET))

        ams_reports = cast(list[str], d.pop("ams_reports", UNSET))

        commodity_identifiers = cls(
            cftc_contract_codes=cftc_contract_codes,
            eia_series=eia_series,
            nass_items=nass_items,
            worldbank_series=worldbank_series,
            ams_reports=ams_reports,
        )

        return commodity_identifiers
