from enum import StrEnum


class BulkFileFormat(StrEnum):
    CSV_GZ = "csv.gz"
    PARQUET = "parquet"

    def __str__(self) -> str:
        return str(self.value)
