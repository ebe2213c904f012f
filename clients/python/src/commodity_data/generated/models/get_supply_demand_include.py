from enum import StrEnum


class GetSupplyDemandInclude(StrEnum):
    REVISIONS = "revisions"

    def __str__(self) -> str:
        return str(self.value)
