# Schemathesis extension for test/contract.e2e.spec.ts (loaded through SCHEMATHESIS_HOOKS).
#
# The service refuses, on purpose, ten kinds of schema-valid requests. Each rule is stated in the
# parameter's description in the OpenAPI document (libs/contracts/src/params.ts):
#   1. start_date after end_date (the given one, or for the series endpoint the default end_date:
#      the date of as_of, else today, in UTC): 400 invalid_parameter naming start_date;
#   2. a series frequency finer than the series' native one (known only from the data): 400
#      invalid_parameter naming frequency;
#   3. an as_of that is not an RFC 3339 date or date-time, is after now, or is before the first
#      publication the service holds of the series or COT format (known only from the data): 400
#      invalid_parameter naming as_of;
#   4. include=revisions with a transform or a frequency other than the native one: 400
#      invalid_parameter naming include;
#   5. GET /events filters naming a commodity id of the right shape that the catalog does not list,
#      or an entry twice (known only from the data, or beyond a pattern): 400 invalid_parameter
#      naming commodities or types;
#   6. a COT request for format=cit with scope=futures_only (the CIT supplement is published for
#      futures and options combined only): 400 invalid_parameter naming scope;
#   7. a supply-demand request for a region, marketing_year or attribute the commodity has no balance
#      sheet figures for (known only from the data): 400 invalid_parameter naming it;
#   8. a supply-demand request for view=editions without marketing_year or attribute (one figure
#      across editions needs both): 400 invalid_parameter naming the one missing.
#   9. a series conversion that does not fit the data (docs/conversion.md): a currency without
#      exchange rates, currency on a series that is not a price or whose unit names no currency;
#      a unit that is no measure, of another kind than the series', a bushel without the crop's
#      weight, a money part on a quantity or disagreeing with currency, or a series unit without a
#      measure: 400 invalid_parameter naming currency or unit.
#  10. a GET /releases window that does not fit: a date outside 1901-01-01..2998-12-31 (400 naming
#      it), or an end_date before start_date or more than 366 days after it (400 naming end_date).
# Schemathesis's positive_data_acceptance check would report them. The spec runs this check in its
# place (and excludes the built-in one): the built-in check's verdict, except for a 400 that is
# exactly one of these refusals of exactly such a request. Any other rejection still fails.
import datetime
import json
import re

import schemathesis
from schemathesis.specs.openapi.checks import positive_data_acceptance

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FREQUENCY_RANK = {"daily": 0, "weekly": 1, "monthly": 2}
FINER_THAN_NATIVE = re.compile(r" is (daily|weekly|monthly); ask for \1 or coarser$")


def _day(value):
    """A YYYY-MM-DD value as it is (ISO dates of four-digit years compare as strings), or None."""
    return value if isinstance(value, str) and DATE.match(value) is not None else None


def _error(response):
    try:
        body = json.loads(response.content or b"")
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) and error.get("code") == "invalid_parameter" else None


def _start_after_end(case, error):
    """Rule 1: the request's start_date is after its end_date (series: default the date of as_of, else today, UTC)."""
    if error.get("param") != "start_date":
        return False
    query = case.query or {}
    start = _day(query.get("start_date"))
    end = _day(query.get("end_date"))
    if end is None and "end_date" not in query and case.operation.path.endswith("/series"):
        as_of = query.get("as_of")
        instant = _as_of_instant(as_of)
        if isinstance(as_of, str) and _day(as_of) is not None:
            end = as_of  # a date as_of (any year the service takes, 0000 included: Python's dates start at 1)
        elif instant is not None:
            end = instant.astimezone(datetime.timezone.utc).date().isoformat()
        else:
            end = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    return start is not None and end is not None and start > end


def _finer_than_native(case, error):
    """Rule 2: the requested frequency is finer than the native one the service names."""
    if error.get("param") != "frequency" or not case.operation.path.endswith("/series"):
        return False
    asked = (case.query or {}).get("frequency")
    native = FINER_THAN_NATIVE.search(error.get("message", ""))
    return asked in FREQUENCY_RANK and native is not None and FREQUENCY_RANK[asked] < FREQUENCY_RANK[native.group(1)]


AS_OF = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$")
BEFORE_DATA = re.compile(r"^invalid 'as_of': no point-in-time data (yet|before \S+) for ")


def _as_of_instant(value):
    """The instant an as_of names (a date: the end of that day, UTC), or None when malformed."""
    if not isinstance(value, str) or AS_OF.match(value) is None:
        return None
    try:
        if "T" not in value:
            day = datetime.date.fromisoformat(value)
            return datetime.datetime.combine(day, datetime.time(23, 59, 59, 999000), datetime.timezone.utc)
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _as_of_refused(case, error):
    """Rule 3: as_of malformed, after now, or (by the service's own words) before the data's first publication."""
    if error.get("param") != "as_of":
        return False
    value = (case.query or {}).get("as_of")
    if value is None:
        return False
    instant = _as_of_instant(value)
    if instant is None or instant > datetime.datetime.now(datetime.timezone.utc):
        return True
    return BEFORE_DATA.search(error.get("message", "")) is not None


def _revisions_of_computed(case, error):
    """Rule 4: include=revisions with a transform, or a frequency (which may differ from the native one)."""
    query = case.query or {}
    if error.get("param") != "include" or query.get("include") != "revisions":
        return False
    return query.get("transform", "none") != "none" or query.get("frequency") is not None


UNLISTED = re.compile(r"^invalid 'commodities': unknown commodity '|listed twice")


def _unlisted_filter(case, error):
    """Rule 5: an /events filter naming a commodity the catalog does not list, or an entry twice."""
    param = error.get("param")
    if not case.operation.path.endswith("/events") or param not in ("commodities", "types"):
        return False
    values = ((case.query or {}).get(param) or "").split(",")
    return len(set(values)) < len(values) or (param == "commodities" and UNLISTED.search(error.get("message", "")) is not None)


def _cit_futures_only(case, error):
    """Rule 6: format=cit with scope=futures_only, a report the CFTC does not publish."""
    query = case.query or {}
    return (
        error.get("param") == "scope"
        and case.operation.path.endswith("/cot")
        and query.get("format") == "cit"
        and query.get("scope") == "futures_only"
    )


UNKNOWN_TO_SHEETS = re.compile(r"^invalid '(region|marketing_year|attribute)': .* (?:has|have) no ")


def _unknown_to_sheets(case, error):
    """Rule 7: a supply-demand region, marketing_year or attribute the balance sheets do not have."""
    param = error.get("param")
    if not case.operation.path.endswith("/supply-demand") or (case.query or {}).get(param) is None:
        return False
    match = UNKNOWN_TO_SHEETS.search(error.get("message", ""))
    return match is not None and match.group(1) == param


def _editions_of_one_figure(case, error):
    """Rule 8: view=editions without the marketing_year or the attribute of its one figure."""
    query = case.query or {}
    param = error.get("param")
    return (
        case.operation.path.endswith("/supply-demand")
        and query.get("view") == "editions"
        and param in ("marketing_year", "attribute")
        and query.get(param) is None
    )


CONVERSION_REFUSED = re.compile(
    r"^invalid '(currency|unit)': .*("
    r"has no exchange rates here|is not a price|names no currency|is not a measure this service converts"
    r"|has no bushel weight|, a (mass|volume|energy); |is a quantity .*, not a price|is not the currency asked"
    r"|has no measure this service converts)"
)


def _conversion_refused(case, error):
    """Rule 9: currency or unit on a series they do not fit (known only from the data)."""
    param = error.get("param")
    if not case.operation.path.endswith("/series") or (case.query or {}).get(param) is None:
        return False
    match = CONVERSION_REFUSED.search(error.get("message", ""))
    return match is not None and match.group(1) == param


RELEASES_FIRST_DATE = "1901-01-01"
RELEASES_LAST_DATE = "2998-12-31"
RELEASES_MAX_DAYS = 366


def _releases_window(case, error):
    """Rule 10: a /releases date outside the calendars' years, or a window ending before it starts or too long."""
    if not case.operation.path.endswith("/releases"):
        return False
    query = case.query or {}
    param = error.get("param")
    if param not in ("start_date", "end_date"):
        return False
    value = _day(query.get(param))
    if value is not None and not RELEASES_FIRST_DATE <= value <= RELEASES_LAST_DATE:
        return True
    start = _day(query.get("start_date"))
    end = _day(query.get("end_date"))
    if param != "end_date" or start is None or end is None:
        return False
    days = (datetime.date.fromisoformat(end) - datetime.date.fromisoformat(start)).days
    return days < 0 or days > RELEASES_MAX_DAYS


@schemathesis.check
def positive_data_acceptance_but_documented_rules(ctx, response, case):
    try:
        return positive_data_acceptance(ctx, response, case)
    except AssertionError:
        error = _error(response) if response.status_code == 400 else None
        if error is not None and (
            _start_after_end(case, error)
            or _finer_than_native(case, error)
            or _as_of_refused(case, error)
            or _revisions_of_computed(case, error)
            or _unlisted_filter(case, error)
            or _cit_futures_only(case, error)
            or _unknown_to_sheets(case, error)
            or _editions_of_one_figure(case, error)
            or _conversion_refused(case, error)
            or _releases_window(case, error)
        ):
            return None
        raise
