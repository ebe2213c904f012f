from enum import StrEnum


class BulkFilePlansItem(StrEnum):
    BUSINESS = "business"
    ENTERPRISE = "enterprise"
    FREE = "free"
    PROFESSIONAL = "professional"

    def __str__(self) -> str:
        return str(self.value)
