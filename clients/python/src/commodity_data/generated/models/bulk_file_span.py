from enum import StrEnum


class BulkFileSpan(StrEnum):
    FULL = "full"
    RECENT = "recent"

    def __str__(self) -> str:
        return str(self.value)
