from enum import StrEnum


class DatasetSummaryCalendarRuleType0(StrEnum):
    COT_WEEKLY = "cot-weekly"
    FX_REFERENCE_DAILY = "fx-reference-daily"
    LM_HG201_DAILY = "lm-hg201-daily"
    PINK_SHEET_MONTHLY = "pink-sheet-monthly"
    QUARTER_END_REPORTS = "quarter-end-reports"
    SUPPLY_DEMAND_MONTHLY = "supply-demand-monthly"
    WPSR_WEEKLY = "wpsr-weekly"

    def __str__(self) -> str:
        return str(self.value)
