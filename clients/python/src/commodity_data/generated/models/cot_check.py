from enum import StrEnum


class CotCheck(StrEnum):
    COMBINED_OI_AT_LEAST_FUTURES_ONLY = "combined_oi_at_least_futures_only"
    LEGACY_OI_EQUALS_DISAGGREGATED_OI = "legacy_oi_equals_disaggregated_oi"
    OLD_PLUS_OTHER_EQUALS_ALL = "old_plus_other_equals_all"

    def __str__(self) -> str:
        return str(self.value)
