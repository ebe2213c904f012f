from enum import StrEnum


class NotificationDataTopic(StrEnum):
    COT_CIT = "cot_cit"
    COT_DISAGGREGATED = "cot_disaggregated"
    COT_DISAGGREGATED_COMBINED = "cot_disaggregated_combined"
    COT_LEGACY = "cot_legacy"
    COT_LEGACY_COMBINED = "cot_legacy_combined"
    ENDING_STOCKS = "ending_stocks"
    HARVESTED_ACRES = "harvested_acres"
    OPEN_INTEREST = "open_interest"
    PLANTED_ACRES = "planted_acres"
    PRICE = "price"
    PRODUCTION = "production"
    REFINERY_INPUTS = "refinery_inputs"
    STOCKS = "stocks"
    SUPPLY_DEMAND = "supply_demand"
    VOLUME = "volume"
    YIELD = "yield"

    def __str__(self) -> str:
        return str(self.value)
