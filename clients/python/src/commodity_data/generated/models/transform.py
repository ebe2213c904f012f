from enum import StrEnum


class Transform(StrEnum):
    CHANGE = "change"
    CUMULATIVE = "cumulative"
    NONE = "none"
    PCT_CHANGE = "pct_change"

    def __str__(self) -> str:
        return str(self.value)
