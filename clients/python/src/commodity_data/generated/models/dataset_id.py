from enum import StrEnum


class DatasetId(StrEnum):
    AMS_LM_HG201 = "ams_lm_hg201"
    AMS_MARKET_NEWS = "ams_market_news"
    CFTC_CIT = "cftc_cit"
    CFTC_DISAGGREGATED = "cftc_disaggregated"
    CFTC_DISAGGREGATED_COMBINED = "cftc_disaggregated_combined"
    CFTC_LEGACY = "cftc_legacy"
    CFTC_LEGACY_COMBINED = "cftc_legacy_combined"
    CFTC_OPEN_INTEREST = "cftc_open_interest"
    ECB_REFERENCE_RATES = "ecb_reference_rates"
    EIA_MONTHLY = "eia_monthly"
    EIA_SPOT_PRICES = "eia_spot_prices"
    EIA_WEEKLY = "eia_weekly"
    NASS_PRICES_RECEIVED = "nass_prices_received"
    NASS_QUARTERLY_REPORTS = "nass_quarterly_reports"
    WASDE = "wasde"
    WORLDBANK_PINK_SHEET = "worldbank_pink_sheet"

    def __str__(self) -> str:
        return str(self.value)
