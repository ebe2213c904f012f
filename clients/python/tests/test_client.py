"""The hand-written layer against a local stub of the API (127.0.0.1): pagination, Retry-After,
typed errors, deadlines, environment defaults and DataFrames. Run: python -m unittest discover tests
"""

from __future__ import annotations

import json
import os
import threading
import time
import traceback
import unittest
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

from commodity_data import (
    DEFAULT_BASE_URL,
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    Client,
    RateLimitError,
    ServerError,
)

KEY = "0123456789abcdef0123456789abcdef01234567"
REQUEST_ID = "req_0123456789abcdef"

Reply = tuple[int, dict[str, str], bytes]


def error(status: int, code: str, message: str, param: str | None = None) -> Reply:
    body: dict[str, Any] = {
        "code": code,
        "message": message,
        "doc_url": f"http://x/docs/errors#{code}",
        "request_id": REQUEST_ID,
    }
    if param is not None:
        body["param"] = param
    return status, {"content-type": "application/json"}, json.dumps({"error": body}).encode()


def ok(body: Any) -> Reply:
    return 200, {"content-type": "application/json"}, json.dumps(body).encode()


class Stub:
    """An HTTP server whose answers a test scripts; it records every request (path, query, headers)."""

    def __init__(self, answer: Callable[[str, dict[str, list[str]]], Reply]) -> None:
        self.answer = answer
        self.requests: list[tuple[str, dict[str, list[str]], dict[str, str], float]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                stub.requests.append((url.path, query, dict(self.headers), time.monotonic()))
                status, headers, body = stub.answer(url.path, query)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (the timeout test)

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def commodity(i: int) -> dict[str, Any]:
    return {"id": f"C{i:03d}", "name": f"Commodity {i}", "category": "energy"}


def catalog(total: int) -> Callable[[str, dict[str, list[str]]], Reply]:
    def answer(path: str, query: dict[str, list[str]]) -> Reply:
        page, per_page = int(query["page"][0]), int(query["per_page"][0])
        items = [commodity(i) for i in range(total)][(page - 1) * per_page : page * per_page]
        pages = -(-total // per_page)
        return ok(
            {
                "data": items,
                "meta": {
                    "page": page,
                    "per_page": per_page,
                    "total": total,
                    "total_pages": pages,
                    "request_id": REQUEST_ID,
                },
            }
        )

    return answer


SERIES = {
    "data": [
        {"date": "2024-01-02", "value": 70.38, "open": 70.0, "high": 71.0, "low": 69.5, "close": 70.38},
        {"date": "2024-01-03", "value": 72.7},
    ],
    "meta": {
        "commodity_id": "CRUDE_OIL_WTI",
        "type": "price",
        "frequency": "daily",
        "transform": "none",
        "count": 2,
        "request_id": REQUEST_ID,
        "unit": "USD/bbl",
    },
}


# A converted answer recorded from the system (GET .../CORN/series?type=price&start_date=2026-01-01
# &currency=EUR&unit=t): the real national corn prices received (NASS, USD/bu) in euros per tonne,
# each month at the average of its days' reference rates; May and June 2026 had no rate yet (null).
CORN_EUR_T = json.loads((Path(__file__).parent / "recorded" / "corn_price_eur_t_2026.json").read_text())
BU_PER_T = 1000 / (56 * 0.45359237)


def legacy_report(date: str, net: int) -> dict[str, Any]:
    group = {"long": 100 + net, "short": 100, "net": net}
    return {
        "report_date": date,
        "commodity": "CORN",
        "open_interest": 1000,
        "format": "legacy",
        "commercial": group,
        "non_commercial": {**group, "spreading": 5},
        "non_reportable": group,
    }


# A recorded answer shaped by SupplyDemandResponse: US corn 2026/27 as the May and June 2026 WASDE
# editions published it (ending stocks 1,957 then 1,960 million bushels; released 12:00 New York).
MAY = {"edition": "2026-05", "published_at": "2026-05-12T16:00:00Z", "status": "projection"}
JUNE = {"edition": "2026-06", "published_at": "2026-06-11T16:00:00Z", "status": "projection"}
CORN_2026 = {"marketing_year": "2026/27", "region": "united_states"}
SHEET = [
    {**CORN_2026, "attribute": "area_planted", "value": 95.3, "unit": "Million Acres", **JUNE},
    {**CORN_2026, "attribute": "ending_stocks", "value": 1960, "unit": "Million Bushels", **JUNE},
    {**CORN_2026, "attribute": "avg_farm_price", "value": 4.4, "unit": "$/bu", **JUNE},
    {**CORN_2026, "attribute": "stocks_to_use", "value": 0.121, "unit": "ratio", "derived": True, **JUNE},
]
EDITIONS = [
    {**CORN_2026, "attribute": "ending_stocks", "value": 1957, "unit": "Million Bushels", "change": None, **MAY},
    {**CORN_2026, "attribute": "ending_stocks", "value": 1960, "unit": "Million Bushels", "change": 3, **JUNE},
]


def supply_demand_page(figures: list[dict[str, Any]], view: str = "figures") -> Callable[..., Reply]:
    def answer(path: str, query: dict[str, list[str]]) -> Reply:
        page, per_page = int(query["page"][0]), int(query["per_page"][0])
        meta = {
            "commodity_id": "CORN",
            "region": "united_states",
            "view": view,
            "page": page,
            "per_page": per_page,
            "total": len(figures),
            "total_pages": -(-len(figures) // per_page),
            "attribution": "USDA World Agricultural Outlook Board",
            "request_id": REQUEST_ID,
        }
        return ok({"data": figures[(page - 1) * per_page : page * per_page], "meta": meta})

    return answer


class StubCase(unittest.TestCase):
    stub: Stub

    def serve(self, answer: Callable[[str, dict[str, list[str]]], Reply]) -> Stub:
        self.stub = Stub(answer)
        self.addCleanup(self.stub.close)
        return self.stub

    def client(self, **kwargs: Any) -> Client:
        client = Client(api_key=KEY, base_url=self.stub.url, **kwargs)
        self.addCleanup(client.close)
        return client


class PaginationTest(StubCase):
    def test_iterates_every_item_across_pages_with_the_same_filters(self) -> None:
        self.serve(catalog(7))
        pager = self.client().commodities(category="energy", per_page=3, as_of="2024-06-30")
        ids = [c.id for c in pager]
        self.assertEqual(ids, [f"C{i:03d}" for i in range(7)])
        self.assertEqual(pager.total, 7)
        pages = [q["page"][0] for _, q, _, _ in self.stub.requests]
        self.assertEqual(pages, ["1", "2", "3"])
        for path, query, headers, _ in self.stub.requests:
            self.assertEqual(path, "/api/v1/commodities")
            self.assertEqual(query["category"], ["energy"])
            # a parameter the generated client does not know is passed on as it is
            self.assertEqual(query["as_of"], ["2024-06-30"])
            self.assertEqual(headers["Authorization"], f"Bearer {KEY}")

    def test_first_fetches_one_page_and_an_empty_catalog_ends_at_once(self) -> None:
        self.serve(catalog(0))
        pager = self.client().commodities()
        self.assertIsNone(pager.first())
        self.assertEqual(list(pager), [])
        self.assertEqual(len(self.stub.requests), 1)
        self.assertEqual(self.stub.requests[0][1]["per_page"], ["100"])

    def test_cot_pages_newest_first_and_first_reads_the_newest(self) -> None:
        reports = [legacy_report("2025-01-14", 30), legacy_report("2025-01-07", -20), legacy_report("2024-12-31", 10)]

        def answer(path: str, query: dict[str, list[str]]) -> Reply:
            self.assertEqual(path, "/api/v1/commodities/CORN/cot")
            page, per_page = int(query["page"][0]), int(query["per_page"][0])
            data = reports[(page - 1) * per_page : page * per_page]
            return ok(
                {
                    "data": data,
                    "meta": {
                        "page": page,
                        "per_page": per_page,
                        "total": 3,
                        "total_pages": 3,
                        "request_id": REQUEST_ID,
                    },
                }
            )

        self.serve(answer)
        corn = self.client().cot("CORN", per_page=1)
        newest = corn.first()
        assert newest is not None
        self.assertEqual((str(newest.report_date), newest.commercial.net), ("2025-01-14", 30))
        self.assertEqual([r.commercial.net for r in corn], [30, -20, 10])


class RetryAfterTest(StubCase):
    def test_a_429_is_retried_after_retry_after(self) -> None:
        status, headers, body = error(429, "rate_limited", "Rate limit exceeded")
        answers = [(status, {**headers, "retry-after": "1"}, body), ok(SERIES)]
        self.serve(lambda _p, _q: answers.pop(0))
        series = self.client().series("CRUDE_OIL_WTI", type="price")
        self.assertEqual([p.value for p in series], [70.38, 72.7])
        (_, _, _, t0), (_, _, _, t1) = self.stub.requests
        self.assertGreaterEqual(t1 - t0, 1.0)

    def test_a_wait_longer_than_max_retry_wait_is_raised_at_once(self) -> None:
        status, headers, body = error(429, "rate_limited", "daily limit")
        self.serve(lambda _p, _q: (status, {**headers, "retry-after": "3600"}, body))
        with self.assertRaises(RateLimitError) as caught:
            self.client().series("CRUDE_OIL_WTI", type="price")
        self.assertEqual((caught.exception.code, caught.exception.retry_after), ("rate_limited", 3600.0))
        self.assertEqual(len(self.stub.requests), 1)

    def test_retries_are_bounded(self) -> None:
        status, headers, body = error(429, "rate_limited", "slow down")
        self.serve(lambda _p, _q: (status, {**headers, "retry-after": "0"}, body))
        with self.assertRaises(RateLimitError):
            self.client(max_retries=2).commodity("GOLD")
        self.assertEqual(len(self.stub.requests), 3)


class ErrorsTest(StubCase):
    def test_a_bad_parameter_is_a_bad_request_error_with_code_param_and_request_id(self) -> None:
        self.serve(lambda _p, _q: error(400, "invalid_parameter", "must be a whole number from 1 to 100", "per_page"))
        with self.assertRaises(BadRequestError) as caught:
            self.client().commodities(per_page=0).first()
        err = caught.exception
        self.assertEqual(
            (err.status, err.code, err.param, err.request_id), (400, "invalid_parameter", "per_page", REQUEST_ID)
        )
        self.assertIn("per_page", str(err))

    def test_401_and_an_answer_that_is_not_the_contracts_body(self) -> None:
        self.serve(lambda _p, _q: error(401, "unauthorized", "unknown key"))
        with self.assertRaises(AuthenticationError):
            self.client().commodity("GOLD")
        self.stub.answer = lambda _p, _q: (
            502,
            {"content-type": "text/html", "x-request-id": "edge-1"},
            b"<h1>Bad Gateway</h1>",
        )
        with self.assertRaises(ServerError) as caught:
            self.client().commodity("GOLD")
        self.assertEqual(
            (caught.exception.status, caught.exception.code, caught.exception.request_id),
            (502, "unknown_error", "edge-1"),
        )

    def test_every_request_has_a_timeout(self) -> None:
        def slow(_p: str, _q: dict[str, list[str]]) -> Reply:
            time.sleep(2)
            return ok(SERIES)

        self.serve(slow)
        started = time.monotonic()
        with self.assertRaises(APIConnectionError):
            self.client(timeout=0.3).series("CRUDE_OIL_WTI", type="price")
        self.assertLess(time.monotonic() - started, 1.5)

    def test_bad_arguments_are_refused_before_any_request(self) -> None:
        self.serve(lambda _p, _q: ok(SERIES))
        with self.assertRaisesRegex(ValueError, "not a SeriesType"):
            self.client().series("CRUDE_OIL_WTI", type="prices")
        with self.assertRaisesRegex(ValueError, "YYYY-MM-DD"):
            self.client().series("CRUDE_OIL_WTI", type="price", start_date="2024-13-01")
        self.assertEqual(self.stub.requests, [])


class ConfigurationTest(unittest.TestCase):
    def test_key_and_base_url_default_to_the_environment(self) -> None:
        with mock.patch.dict(os.environ, {"CDS_API_KEY": KEY, "CDS_BASE_URL": "https://example.test:9000"}):
            client = Client()
        self.assertEqual(client.base_url, "https://example.test:9000/api/v1")
        self.assertEqual(client.lowlevel.token, KEY)
        with mock.patch.dict(os.environ, {"CDS_API_KEY": KEY}, clear=True):
            self.assertEqual(Client().base_url, DEFAULT_BASE_URL)
        with mock.patch.dict(os.environ, {}, clear=True), self.assertRaisesRegex(ValueError, "CDS_API_KEY"):
            Client()
        with self.assertRaisesRegex(ValueError, "http"):
            Client(api_key=KEY, base_url="localhost:8080")


class InsecureHttpTest(unittest.TestCase):
    def test_plain_http_to_another_machine_is_refused_unless_asked(self) -> None:
        for url in (
            "http://example.test:9000",
            "http://api.example.com/api/v1",
            "http://10.0.0.5:8080",
            "http://[2001:db8::1]:8080",
            "http://localhost.example.com",
            "http://127.0.0.1.example.com",
        ):
            with self.subTest(url=url), self.assertRaises(ValueError) as caught:
                Client(api_key=KEY, base_url=url)
            message = str(caught.exception)
            self.assertIn("https://", message)
            self.assertIn("allow_insecure_http=True", message)
            self.assertNotIn(KEY, message)
        self.assertEqual(
            Client(api_key=KEY, base_url="http://api.example.com", allow_insecure_http=True).base_url,
            "http://api.example.com/api/v1",
        )
        with mock.patch.dict(os.environ, {"CDS_ALLOW_INSECURE_HTTP": "1"}):
            self.assertEqual(Client(api_key=KEY, base_url="http://gateway:8080").base_url, "http://gateway:8080/api/v1")
        with mock.patch.dict(os.environ, {"CDS_ALLOW_INSECURE_HTTP": "1"}), self.assertRaises(ValueError):
            Client(api_key=KEY, base_url="http://gateway:8080", allow_insecure_http=False)

    def test_loopback_and_https_stay_allowed(self) -> None:
        for url in (
            "http://localhost:8080",
            "http://LOCALHOST:8080/api/v1",
            "http://127.0.0.1:8080",
            "http://127.3.2.1",
            "http://[::1]:8080",
            "https://api.example.com",
            DEFAULT_BASE_URL,
        ):
            with self.subTest(url=url):
                self.assertTrue(Client(api_key=KEY, base_url=url).base_url.endswith("/api/v1"))


class KeyNeverPrintedTest(StubCase):
    def test_repr_and_str_of_the_client_and_its_lowlevel_client_leave_the_key_out(self) -> None:
        self.serve(lambda _p, _q: ok(SERIES))
        client = self.client()
        client.series("CRUDE_OIL_WTI", type="price")  # the low-level client now holds its Authorization header
        self.assertEqual(self.stub.requests[0][2]["Authorization"], f"Bearer {KEY}")
        shown = [
            repr(client),
            str(client),
            repr(client.lowlevel),
            str(client.lowlevel),
            repr(vars(client)),
            repr(client.lowlevel.get_httpx_client().headers),
        ]
        for text in shown:
            self.assertNotIn(KEY, text)
        self.assertEqual(repr(client), f"Client(base_url={self.stub.url!r}, timeout=30.0, deadline=180.0)")

    def test_errors_never_carry_the_key_even_when_the_answer_quotes_it(self) -> None:
        self.serve(lambda _p, _q: error(401, "unauthorized", f"unknown key {KEY}"))
        with self.assertRaises(AuthenticationError) as caught:
            self.client().commodity("GOLD")
        err = caught.exception
        self.assertEqual(err.message, "unknown key [REDACTED]")
        self.assertNotIn(KEY, str(err))
        self.assertNotIn(KEY, repr(err))
        self.assertNotIn(KEY, "".join(traceback.format_exception(err)))
        # no answer at all: the connection error names the URL, not the key
        port = self.stub.server.server_address[1]
        self.stub.close()
        with self.assertRaises(APIConnectionError) as refused:
            Client(api_key=KEY, base_url=f"http://127.0.0.1:{port}", timeout=2).status()
        self.assertNotIn(KEY, "".join(traceback.format_exception(refused.exception)))

    def test_a_key_that_no_header_can_carry_is_refused_without_quoting_it(self) -> None:
        for bad in (f"{KEY}\n", f"{KEY} x", f"{KEY}\u00e9", f"{KEY}\r\nX-Injected: 1"):
            with self.subTest(key=len(bad)), self.assertRaises(ValueError) as caught:
                Client(api_key=bad, base_url="http://127.0.0.1:1")
            self.assertNotIn(KEY, str(caught.exception))


class DataFramesTest(StubCase):
    def test_series_to_pandas(self) -> None:
        try:
            import pandas as pd
        except ImportError:
            self.skipTest("pandas is not installed (pip install 'commodity-data[pandas]')")
        self.serve(lambda _p, _q: ok(SERIES))
        frame = self.client().series("CRUDE_OIL_WTI", type="price").to_pandas()
        self.assertEqual(list(frame.columns), ["date", "value", "open", "high", "low", "close"])
        self.assertEqual(frame["date"].iloc[1], pd.Timestamp("2024-01-03"))
        self.assertEqual(frame["value"].tolist(), [70.38, 72.7])
        self.assertTrue(pd.isna(frame["open"].iloc[1]))

    def test_cot_sends_scope_and_reads_cit_reports(self) -> None:
        group = {"long": 120, "short": 100, "net": 20}
        cit = {
            "report_date": "2025-01-14",
            "commodity": "CORN",
            "open_interest": 1000,
            "format": "cit",
            "scope": "futures_and_options",
            "failed_checks": ["legacy_oi_equals_disaggregated_oi"],
            "commercial": group,
            "non_commercial": {**group, "spreading": 5},
            "index_traders": {"long": 300, "short": 50, "net": 250},
            "non_reportable": group,
        }
        seen: list[dict[str, list[str]]] = []

        def answer(path: str, query: dict[str, list[str]]) -> Reply:
            seen.append(query)
            meta = {"page": 1, "per_page": 100, "total": 1, "total_pages": 1, "request_id": REQUEST_ID}
            return ok({"data": [cit], "meta": meta})

        self.serve(answer)
        report = self.client().cot("CORN", format="cit", scope="futures_and_options").first()
        assert report is not None
        self.assertEqual((seen[0]["format"], seen[0]["scope"]), (["cit"], ["futures_and_options"]))
        self.assertEqual(report.index_traders.net, 250)
        self.assertEqual(report.scope.value, "futures_and_options")
        self.assertEqual([c.value for c in report.failed_checks], ["legacy_oi_equals_disaggregated_oi"])

    def test_cot_to_pandas_and_series_to_polars(self) -> None:
        try:
            import pandas as pd
            import polars as pl
        except ImportError:
            self.skipTest("pandas or polars is not installed")
        reports = [legacy_report("2025-01-14", 30), legacy_report("2025-01-07", -20)]

        def answer(path: str, query: dict[str, list[str]]) -> Reply:
            if path.endswith("/series"):
                return ok(SERIES)
            meta = {"page": 1, "per_page": 100, "total": 2, "total_pages": 1, "request_id": REQUEST_ID}
            return ok({"data": reports, "meta": meta})

        self.serve(answer)
        client = self.client()
        cot = client.cot("CORN").to_pandas()
        self.assertEqual(cot["commercial_net"].tolist(), [30, -20])
        self.assertEqual(cot["non_commercial_spreading"].tolist(), [5, 5])
        self.assertEqual(cot["report_date"].iloc[0], pd.Timestamp("2025-01-14"))
        frame = client.series("CRUDE_OIL_WTI", type="price").to_polars()
        self.assertEqual(frame.schema["date"], pl.Date)
        self.assertEqual(frame["value"].to_list(), [70.38, 72.7])
        cot_pl = client.cot("CORN").to_polars()
        self.assertEqual(cot_pl["commercial_net"].to_list(), [30, -20])


class ConversionTest(StubCase):
    def test_sends_currency_and_unit_and_reads_the_working(self) -> None:
        stub = self.serve(lambda _p, _q: ok(CORN_EUR_T))
        series = self.client().series("CORN", type="price", start_date="2026-01-01", currency="EUR", unit="t")
        path, query, _, _ = stub.requests[0]
        self.assertEqual(path, "/api/v1/commodities/CORN/series")
        self.assertEqual(
            {k: v[0] for k, v in query.items()},
            {"type": "price", "start_date": "2026-01-01", "currency": "EUR", "unit": "t"},
        )
        self.assertEqual(series.unit, "EUR/t")
        conversion = series.conversion
        assert conversion is not None
        self.assertAlmostEqual(conversion["unit"]["factor"], BU_PER_T)
        self.assertEqual(conversion["currency"]["rule"], "monthly_average")
        self.assertEqual(conversion["currency"]["attribution"], "Source: ECB statistics")
        # a point without a rate is None, not an error
        self.assertEqual([p.value for p in series][4:], [None, None])
        self.assertEqual(series.data[0].fx_rate, 0.85199452)
        self.assertEqual(series.data[0].value, 137.52033)

    def test_an_unconverted_answer_has_its_unit_and_no_conversion(self) -> None:
        self.serve(lambda _p, _q: ok(SERIES))
        series = self.client().series("CRUDE_OIL_WTI", type="price")
        self.assertEqual((series.unit, series.conversion), ("USD/bbl", None))
        # nothing sent that was not asked for
        self.assertNotIn("currency", self.stub.requests[0][1])
        self.assertNotIn("unit", self.stub.requests[0][1])

    def test_the_api_refusal_of_a_currency_names_it(self) -> None:
        self.serve(lambda _p, _q: error(400, "invalid_parameter", "no exchange rates for XAU", "currency"))
        with self.assertRaises(BadRequestError) as caught:
            self.client().series("CORN", type="price", currency="XAU")
        self.assertEqual((caught.exception.param, caught.exception.message), ("currency", "no exchange rates for XAU"))

    def test_frames_keep_the_unit_and_the_working_and_a_missing_rate_is_nan_or_null(self) -> None:
        try:
            import pandas as pd
            import polars as pl
        except ImportError:
            self.skipTest("pandas or polars is not installed")
        self.serve(lambda _p, _q: ok(CORN_EUR_T))
        series = self.client().series("CORN", type="price", currency="EUR", unit="t")
        frame = series.to_pandas()
        self.assertEqual(list(frame.columns), ["date", "value", "fx_rate", "published_at", "first_seen_at"])
        self.assertEqual(frame.attrs["unit"], "EUR/t")
        self.assertEqual(frame.attrs["conversion"]["currency"]["missing"], 2)
        self.assertEqual(frame.attrs["conversion"]["to"], {"unit": "EUR/t", "currency": "EUR"})
        self.assertEqual(str(frame["value"].dtype), "float64")
        self.assertEqual(frame["value"].isna().tolist(), [False] * 4 + [True] * 2)
        self.assertEqual(frame["date"].iloc[5], pd.Timestamp("2026-06-30"))
        polars = series.to_polars()
        self.assertEqual(polars.columns, ["date", "value", "fx_rate", "published_at", "first_seen_at", "unit"])
        self.assertEqual(polars.schema["value"], pl.Float64)
        self.assertEqual(polars["value"].null_count(), 2)
        self.assertEqual(polars["unit"].to_list(), ["EUR/t"] * 6)

    def test_a_series_whose_every_point_lacks_a_rate_is_still_a_numeric_frame(self) -> None:
        try:
            import pandas  # noqa: F401
            import polars as pl
        except ImportError:
            self.skipTest("pandas or polars is not installed")
        only_missing = {**CORN_EUR_T, "data": CORN_EUR_T["data"][4:]}
        self.serve(lambda _p, _q: ok(only_missing))
        series = self.client().series("CORN", type="price", currency="EUR", unit="t")
        self.assertEqual(str(series.to_pandas()["value"].dtype), "float64")
        self.assertEqual(series.to_polars().schema["value"], pl.Float64)


class SupplyDemandTest(StubCase):
    def test_sends_the_query_as_the_api_reads_it_and_reads_one_figure_across_editions(self) -> None:
        stub = self.serve(supply_demand_page(EDITIONS, "editions"))
        sd = self.client().supply_demand(
            "CORN",
            region="united_states",
            marketing_year="2026/27",
            attribute="ending_stocks",
            view="editions",
            as_of="2026-06-30",
            first_release=True,
            include="revisions",
        )
        self.assertEqual(
            [(f.edition, f.value, f.unit, f.change) for f in sd.data],
            [
                ("2026-05", 1957, "Million Bushels", None),
                ("2026-06", 1960, "Million Bushels", 3),
            ],
        )
        path, query, _, _ = stub.requests[0]
        self.assertEqual(path, "/api/v1/commodities/CORN/supply-demand")
        self.assertEqual(
            {k: v[0] for k, v in query.items()},
            {
                "region": "united_states",
                "marketing_year": "2026/27",
                "attribute": "ending_stocks",
                "view": "editions",
                "as_of": "2026-06-30",
                "first_release": "true",
                "include": "revisions",
                "page": "1",
                "per_page": "100",
            },
        )
        self.assertEqual(sd.meta.attribution, "USDA World Agricultural Outlook Board")

    def test_pages_through_every_figure_once(self) -> None:
        stub = self.serve(supply_demand_page(SHEET))
        sd = self.client().supply_demand("CORN", per_page=3)
        self.assertEqual([f.attribute for f in sd.data], [f["attribute"] for f in SHEET])
        self.assertEqual([f.attribute for f in sd], [f["attribute"] for f in SHEET])
        self.assertEqual(sd.total, 4)
        self.assertEqual([q["page"] for _, q, _, _ in stub.requests], [["1"], ["2"]])
        self.assertIs(sd.data[3].derived, True)

    def test_a_datetime_as_of_is_sent_as_rfc_3339_and_a_bad_view_is_refused_before_any_request(self) -> None:
        import datetime

        stub = self.serve(supply_demand_page(SHEET))
        client = self.client()
        at = datetime.datetime(2026, 6, 11, 12, 30, tzinfo=datetime.UTC)
        client.supply_demand("CORN", as_of=at).first()
        self.assertEqual(stub.requests[0][1]["as_of"], ["2026-06-11T12:30:00+00:00"])
        with self.assertRaises(ValueError) as caught:
            client.supply_demand("CORN", view="sheet")
        self.assertIn("editions", str(caught.exception))
        self.assertEqual(len(stub.requests), 1)

    def test_the_api_refusal_names_its_parameter(self) -> None:
        self.serve(lambda _p, _q: error(400, "invalid_parameter", "no figures for region mars", "region"))
        with self.assertRaises(BadRequestError) as caught:
            self.client().supply_demand("CORN", region="mars").first()
        self.assertEqual((caught.exception.status, caught.exception.param), (400, "region"))

    def test_frames_keep_the_unit_of_each_figure(self) -> None:
        try:
            import pandas as pd
            import polars as pl
        except ImportError:
            self.skipTest("pandas or polars is not installed")
        self.serve(supply_demand_page(SHEET))
        client = self.client()
        frame = client.supply_demand("CORN").to_pandas()
        self.assertEqual(
            list(frame.columns),
            [
                "marketing_year",
                "region",
                "attribute",
                "value",
                "unit",
                "edition",
                "published_at",
                "status",
                "derived",
                "change",
                "failed_checks",
            ],
        )
        self.assertEqual(frame["unit"].tolist(), ["Million Acres", "Million Bushels", "$/bu", "ratio"])
        self.assertEqual(frame["derived"].tolist(), [False, False, False, True])
        self.assertEqual(frame["published_at"].iloc[0], pd.Timestamp("2026-06-11T16:00:00Z"))
        polars = client.supply_demand("CORN").to_polars()
        self.assertEqual(polars["unit"].to_list(), ["Million Acres", "Million Bushels", "$/bu", "ratio"])
        self.assertEqual(polars.schema["published_at"], pl.Datetime("us", "UTC"))
        self.assertEqual(polars["value"].to_list(), [95.3, 1960, 4.4, 0.121])


if __name__ == "__main__":
    unittest.main()
