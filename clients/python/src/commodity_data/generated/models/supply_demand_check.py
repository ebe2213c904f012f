from enum import StrEnum


class SupplyDemandCheck(StrEnum):
    SUPPLY_EQUALS_USE_PLUS_ENDING_STOCKS = "supply_equals_use_plus_ending_stocks"

    def __str__(self) -> str:
        return str(self.value)
