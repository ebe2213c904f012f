from enum import StrEnum


class GetSeriesInclude(StrEnum):
    REVISIONS = "revisions"

    def __str__(self) -> str:
        return str(self.value)
