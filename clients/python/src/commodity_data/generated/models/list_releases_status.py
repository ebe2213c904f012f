from enum import StrEnum


class ListReleasesStatus(StrEnum):
    CANCELLED = "cancelled"
    LATE = "late"
    MISSING = "missing"
    PUBLISHED = "published"
    SCHEDULED = "scheduled"
    SHIFTED = "shifted"

    def __str__(self) -> str:
        return str(self.value)
