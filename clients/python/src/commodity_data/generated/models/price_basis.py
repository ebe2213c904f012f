from enum import StrEnum


class PriceBasis(StrEnum):
    CASH = "cash"
    DEMO = "demo"
    FUTURES_SETTLEMENT = "futures_settlement"
    MONTHLY_AVERAGE = "monthly_average"
    RECEIVED_BY_FARMERS = "received_by_farmers"
    SPOT = "spot"

    def __str__(self) -> str:
        return str(self.value)
