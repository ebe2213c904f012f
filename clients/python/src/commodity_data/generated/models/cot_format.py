from enum import StrEnum


class CotFormat(StrEnum):
    CIT = "cit"
    DISAGGREGATED = "disaggregated"
    LEGACY = "legacy"

    def __str__(self) -> str:
        return str(self.value)
