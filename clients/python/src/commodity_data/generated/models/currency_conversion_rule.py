from enum import StrEnum


class CurrencyConversionRule(StrEnum):
    DAILY = "daily"
    MONTHLY_AVERAGE = "monthly_average"
    WEEKLY_AVERAGE = "weekly_average"

    def __str__(self) -> str:
        return str(self.value)
