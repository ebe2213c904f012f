from enum import StrEnum


class CotFormat(StrEnum):
    DISAGGREGATED = "disaggregated"
    LEGACY = "legacy"

    def __str__(self) -> str:
        return str(self.value)
