from enum import StrEnum


class NotificationType(StrEnum):
    COT_UPDATED = "cot.updated"
    SERIES_UPDATED = "series.updated"
    SUPPLY_DEMAND_UPDATED = "supply_demand.updated"

    def __str__(self) -> str:
        return str(self.value)
