from enum import StrEnum


class SupplyDemandStatus(StrEnum):
    ESTIMATE = "estimate"
    PROJECTION = "projection"

    def __str__(self) -> str:
        return str(self.value)
