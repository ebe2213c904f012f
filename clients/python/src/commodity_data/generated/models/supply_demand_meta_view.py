from enum import StrEnum


class SupplyDemandMetaView(StrEnum):
    EDITIONS = "editions"
    FIGURES = "figures"

    def __str__(self) -> str:
        return str(self.value)
