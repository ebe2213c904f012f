from enum import StrEnum


class ReleaseStatus(StrEnum):
    CANCELLED = "cancelled"
    LATE = "late"
    MISSING = "missing"
    PUBLISHED = "published"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
