from enum import StrEnum


class Category(StrEnum):
    AGRICULTURE = "agriculture"
    ENERGY = "energy"
    METALS = "metals"
    SOFTS = "softs"

    def __str__(self) -> str:
        return str(self.value)
