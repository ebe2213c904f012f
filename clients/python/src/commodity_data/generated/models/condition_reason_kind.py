from enum import StrEnum


class ConditionReasonKind(StrEnum):
    CANCELLED = "cancelled"
    CHECK_FAILED = "check_failed"
    LATE_RELEASE = "late_release"
    MISSING_RELEASE = "missing_release"
    SOURCE_ERRORS = "source_errors"

    def __str__(self) -> str:
        return str(self.value)
