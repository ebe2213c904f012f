from enum import StrEnum


class CotScope(StrEnum):
    FUTURES_AND_OPTIONS = "futures_and_options"
    FUTURES_ONLY = "futures_only"

    def __str__(self) -> str:
        return str(self.value)
