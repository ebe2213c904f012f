from enum import StrEnum


class NotificationType(StrEnum):
    COT_UPDATED = "cot.updated"
    SERIES_UPDATED = "series.updated"

    def __str__(self) -> str:
        return str(self.value)
