from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.currency_conversion_rule import CurrencyConversionRule

T = TypeVar("T", bound="CurrencyConversion")


@_attrs_define
class CurrencyConversion:
    """The exchange-rate part of a conversion.

    Attributes:
        from_ (str):
        to (str):
        rates (list[str]): The reference-rate series used (`USD/EUR`, `CAD/EUR`: units per one euro); two when the
            conversion goes through the euro cross (to ÷ from), none between a currency and itself.
        rule (CurrencyConversionRule): Which rate each point uses: daily (that day’s rate, or the latest earlier one at
            most 5 days back; a carried point’s fx_rate_date says which), weekly_average (the average of the daily rates of
            the 7 days ending on the point’s date) or monthly_average (the average of the daily rates of the point’s month).
        carried (int): Points that used an earlier day’s rate (daily rule).
        missing (int): Points whose value is null: no rate within 5 days (daily) or none in the period (averages).
        source (str): Where the rates come from (provenance, e.g. `ecb:USD`).
        attribution (str):
        note (str): Converted values are derived data, not statistics published by the source of the rates.
    """

    from_: str
    to: str
    rates: list[str]
    rule: CurrencyConversionRule
    carried: int
    missing: int
    source: str
    attribution: str
    note: str

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        rates = self.rates

        rule = self.rule.value

        carried = self.carried

        missing = self.missing

        source = self.source

        attribution = self.attribution

        note = self.note

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
                "rates": rates,
                "rule": rule,
                "carried": carried,
                "missing": missing,
                "source": source,
                "attribution": attribution,
                "note": note,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        rates = cast(list[str], d.pop("rates"))

        rule = CurrencyConversionRule(d.pop("rule"))

        carried = d.pop("carried")

        missing = d.pop("missing")

        source = d.pop("source")

        attribution = d.pop("attribution")

        note = d.pop("note")

        currency_conversion = cls(
            from_=from_,
            to=to,
            rates=rates,
            rule=rule,
            carried=carried,
            missing=missing,
            source=source,
            attribution=attribution,
            note=note,
        )

        return currency_conversion
