from enum import StrEnum


class DatasetCondition(StrEnum):
    AVAILABLE = "available"
    DEGRADED = "degraded"
    LATE = "late"
    MISSING = "missing"

    def __str__(self) -> str:
        return str(self.value)
