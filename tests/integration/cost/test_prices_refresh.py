"""``sagemaker-fleet prices refresh`` against offer files served over HTTP on loopback, and what it changes: the
table every command reads, so that ``validate`` of an eu-west-3 fleet has no price warning after a refresh.

The offer files (tests/data/price_list) are written from AWS's documented bulk-file format — a region index whose
``currentVersionUrl`` paths point at one offer file per region — because no real offer file could be fetched where
the tests were written; their prices are made up (each ends in 7). The server answers exactly those paths.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.price_table import refreshed_table_path
from sagemaker_fleet.jobs.prices import PriceBook

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[2] / "data" / "price_list"
BASE = "/offers/v1.0/aws/AmazonSageMaker"
INDEX = f"{BASE}/current/region_index.json"

#: An eu-west-3 fleet on the types a first fleet uses (the demo fleet's and small.yaml's).
PARIS_FLEET = """\
fleet: bakery
region: eu-west-3
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.eu-west-3.amazonaws.com/demand:1.4
output_s3_uri: s3://bakery-ml/fleets/bakery
defaults:
  instance_type: ml.m5.xlarge
cities:
  - {name: caen, train_s3_uri: "s3://bakery-ml/data/caen/"}
  - {name: lyon, train_s3_uri: "s3://bakery-ml/data/lyon/", instance_type: ml.c5.xlarge}
  - {name: nice, train_s3_uri: "s3://bakery-ml/data/nice/", instance_type: ml.m5.2xlarge}
"""


class PriceListServer:
    """The Price List's files at AWS's paths on 127.0.0.1; ``requests`` lists the paths asked for."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.requests.append(self.path)
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def index_url(self) -> str:
        return self.url + INDEX


@pytest.fixture
def price_list() -> Iterator[PriceListServer]:
    files = {INDEX: (DATA / "region_index.json").read_bytes()}
    for region in ("eu-west-3", "us-east-1"):
        files[f"{BASE}/20261120184323/{region}/index.json"] = (DATA / f"{region}.json").read_bytes()
    server = PriceListServer(files)
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture
def table_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "share" / "prices.json"
    monkeypatch.setenv("SAGEMAKER_FLEET_PRICE_TABLE", str(path))
    return path


def test_refresh_writes_every_regions_training_prices_dated_and_sourced(
    price_list: PriceListServer, table_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prices", "refresh", "--offers-url", price_list.index_url]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"wrote {table_path}: 7 prices in 2 regions, as of 2026-11-20 (from {price_list.index_url})"
    )
    assert out[1:] == ["left out: ap-east-2: its usage-type prefix is not known to this version"]
    # the index, then each region whose prefix is known, once; ap-east-2's file is never asked for
    assert price_list.requests == [
        INDEX,
        f"{BASE}/20261120184323/eu-west-3/index.json",
        f"{BASE}/20261120184323/us-east-1/index.json",
    ]
    written = json.loads(table_path.read_text(encoding="utf-8"))
    assert written["as_of"] == "2026-11-20"
    assert written["retrieved"]["from"] == price_list.index_url
    assert written["retrieved"]["publication_date"] == "2026-11-20"
    assert written["regions"]["eu-west-3"]["ml.m5.xlarge"] == {
        "usd_per_hour": 0.2717,
        "source": "offer:eu-west-3",
        "usage_type": "EUW3-Train:ml.m5.xlarge",
    }
    assert sorted(written["regions"]["us-east-1"]) == ["ml.c5.xlarge", "ml.m5.xlarge"]
    assert "version 20261120184323" in written["sources"]["offer:us-east-1"]


def test_after_a_refresh_an_eu_west_3_fleet_validates_without_a_price_warning(
    price_list: PriceListServer, table_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "bakery.yaml"
    spec.write_text(PARIS_FLEET, encoding="utf-8")
    assert main(["validate", str(spec)]) == 0  # the shipped table has no eu-west-3 price: three warnings
    before = [line for line in capsys.readouterr().err.splitlines() if "warning: prices:" in line]
    assert len(before) == 3
    assert all("run `sagemaker-fleet prices refresh`" in line for line in before)
    assert all("in the price table shipped with the package (as of 2026-11-29, " in line for line in before)

    assert main(["prices", "refresh", "--offers-url", price_list.index_url]) == 0
    capsys.readouterr()
    assert main(["validate", str(spec)]) == 0
    assert "prices:" not in capsys.readouterr().err
    # the one lookup prices the fleet from the refreshed table and says so
    price = PriceBook.for_spec(load_fleet_spec(spec)).price("ml.c5.xlarge")
    assert (price.usd_per_hour, price.source) == (0.2457, "table")
    assert price.detail.startswith(
        "refreshed table as of 2026-11-20 (offer:eu-west-3): AWS Price List offer file "
    )


def test_one_region_only(
    price_list: PriceListServer, table_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prices", "refresh", "--offers-url", price_list.index_url, "--region", "eu-west-3"]) == 0
    assert price_list.requests == [INDEX, f"{BASE}/20261120184323/eu-west-3/index.json"]
    assert sorted(json.loads(table_path.read_text(encoding="utf-8"))["regions"]) == ["eu-west-3"]
    assert main(["prices", "refresh", "--offers-url", price_list.index_url, "--region", "xx-nowhere-1"]) == 2
    assert "--region xx-nowhere-1: not in the price list's regions (ap-east-2, eu-west-3, us-east-1)" in (
        capsys.readouterr().err
    )


def test_from_local_files_gives_the_same_prices(
    price_list: PriceListServer, table_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["prices", "refresh", "--offers-url", price_list.index_url]) == 0
    fetched = json.loads(table_path.read_text(encoding="utf-8"))
    out = tmp_path / "offline.json"
    files = [str(DATA / "eu-west-3.json"), str(DATA / "us-east-1.json")]
    assert (
        main(["prices", "refresh", "--from-file", files[0], "--from-file", files[1], "--out", str(out)]) == 0
    )
    assert f"wrote {out}: 7 prices in 2 regions, as of 2026-11-20" in capsys.readouterr().out
    offline = json.loads(out.read_text(encoding="utf-8"))
    assert offline["regions"] == json.loads(json.dumps(fetched["regions"]))
    assert offline["retrieved"]["from"] == ", ".join(files)


def test_an_unreachable_price_list_is_exit_1_and_nothing_written(
    table_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = PriceListServer({})
    url = closed.index_url
    closed.httpd.server_close()  # nothing listens there now
    assert main(["prices", "refresh", "--offers-url", url]) == 1
    assert capsys.readouterr().err.startswith(f"error: {url}: cannot be fetched (")
    assert not table_path.exists()


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "HTTP 404 Not Found; check --offers-url"),
        ({INDEX: b"<html>pricing</html>"}, "not JSON: not an AWS Price List offer file"),
        (
            {
                INDEX: json.dumps(
                    {
                        "publicationDate": "2026-11-20T00:00:00Z",
                        "regions": {
                            "eu-west-3": {"currentVersionUrl": "http://198.51.100.7/eu-west-3/index.json"}
                        },
                    }
                ).encode()
            },
            "regions.eu-west-3 points at another host (http://198.51.100.7/eu-west-3/index.json); refused",
        ),
    ],
    ids=["not-found", "not-json", "another-host"],
)
def test_an_answer_that_is_not_the_price_list_is_exit_2_naming_it(
    files: dict[str, bytes], message: str, table_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = PriceListServer(files)
    server.thread.start()
    try:
        assert main(["prices", "refresh", "--offers-url", server.index_url]) == 2
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    assert capsys.readouterr().err == f"error: {server.index_url}: {message}\n"
    assert not table_path.exists()


def test_bad_flags_are_refused_before_anything_is_fetched(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prices", "refresh", "--offers-url", "ftp://example.com/index.json"]) == 2
    assert "write an http(s) URL" in capsys.readouterr().err
    assert (
        main(["prices", "refresh", "--from-file", str(DATA / "eu-west-3.json"), "--region", "eu-west-3"]) == 2
    )
    assert "--region: the regions of --from-file are the files' own" in capsys.readouterr().err
    assert main(["prices", "refresh", "--from-file", str(DATA / "region_index.json")]) == 2
    assert "no products: not an AWS Price List offer file" in capsys.readouterr().err


def test_the_default_table_path_is_the_one_every_command_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAGEMAKER_FLEET_PRICE_TABLE")
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/data")
    assert refreshed_table_path() == Path("/srv/data/sagemaker-fleet/prices.json")
