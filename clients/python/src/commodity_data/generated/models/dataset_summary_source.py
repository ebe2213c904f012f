from enum import StrEnum


class DatasetSummarySource(StrEnum):
    AMS = "ams"
    CFTC = "cftc"
    ECB = "ecb"
    EIA = "eia"
    NASS = "nass"
    WASDE = "wasde"
    WORLDBANK = "worldbank"

    def __str__(self) -> str:
        return str(self.value)
