"""``sagemaker-fleet import``: inputs it refuses (exit 2), where the spec goes, the cities it names without
``--cities`` (request files: no AWS call) and the quotas it reads from Service Quotas (botocore's Stubber)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sagemaker_fleet.cli.import_jobs import _account_quotas
from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import InstanceQuota
from sagemaker_fleet.fleetspec.draft import QuotaReading
from sagemaker_fleet.fleetspec.names import CITY_TAG
from unit.fleetspec.test_draft import request


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "seoul.json"
    path.write_text(json.dumps(request("seoul")))
    return path


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], "name at least one JOB or --request FILE"),
        (["--cities", "a,b"], "--cities names 2 cities for 1 jobs"),
        (["--cities", "Seoul!"], "not a city name: Seoul!"),
    ],
)
def test_refused_inputs_exit_2(
    request_file: Path, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["import", "--request", str(request_file)] if argv or words.startswith("--") else ["import"]
    assert main(base + argv if argv else base) == 2
    assert words in capsys.readouterr().err


def test_a_request_file_that_is_no_request_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("Training: {}\n")
    assert main(["import", "--request", str(path)]) == 2
    assert "not CreateTrainingJob fields: Training" in capsys.readouterr().err


def test_the_spec_goes_to_out_never_over_a_file_without_force(
    request_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fleet.yaml"
    assert main(["import", "--request", str(request_file), "--out", str(out)]) == 0
    assert "cities:\n- name: seoul\n" in out.read_text()  # the city from the sagemaker-fleet:city tag
    assert main(["import", "--request", str(request_file), "--out", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["import", "--request", str(request_file), "--out", str(out), "--force"]) == 0


def test_the_sdk_v2_upload_of_a_training_config_is_left_out_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SDK v2's ``training_config`` adds ``S3Operations`` (its Airflow operator uploads the source directory first):
    not CreateTrainingJob's, so it is left out and said, not refused."""
    upload = {
        "S3Upload": [{"Path": "/src/train.py", "Bucket": "b", "Key": "code/sourcedir.tar.gz", "Tar": True}]
    }
    path = tmp_path / "training_config.json"
    path.write_text(json.dumps({**request("seoul"), "S3Operations": upload}))
    out = tmp_path / "fleet.yaml"
    assert main(["import", "--request", str(path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "left out: S3Operations — the SageMaker SDK v2's upload of your source directory" in err
    text = out.read_text()
    assert "S3Upload" not in text.split("# Left out:")[0]
    assert "#   S3Operations — the SageMaker SDK v2's upload" in text


# ------------------------------------------------------------------------------------ the cities without --cities


def untagged(city: str, stamp: str = "2026-11-28-02-00-00") -> dict[str, Any]:
    """A request named the SageMaker SDK's way (``demand-<city>-<timestamp>``) with no sagemaker-fleet:city tag."""
    made = request(city)
    made["TrainingJobName"] = f"demand-{city}-{stamp}"
    made["Tags"] = [tag for tag in made["Tags"] if tag["Key"] != CITY_TAG]
    return made


def import_files(tmp_path: Path, requests: list[dict[str, Any]], *extra: str) -> list[str]:
    """The argv importing ``requests`` as request files, to ``tmp_path/fleet.yaml``."""
    argv = ["import", "--out", str(tmp_path / "fleet.yaml"), *extra]
    for index, made in enumerate(requests):
        path = tmp_path / f"r{index}.json"
        path.write_text(json.dumps(made))
        argv += ["--request", str(path)]
    return argv


def drafted(tmp_path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((tmp_path / "fleet.yaml").read_text())
    return loaded


def test_the_cities_are_guessed_from_the_job_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = [untagged("oslo"), untagged("caen", "2026-11-28-02-11-42"), untagged("lima")]
    assert main(import_files(tmp_path, requests)) == 0
    assert "cities guessed from the job names: oslo, caen, lima" in capsys.readouterr().err
    draft = drafted(tmp_path)
    assert [city["name"] for city in draft["cities"]] == ["oslo", "caen", "lima"]
    # each name is now a {city}: the data URIs agree and are the fleet's, and no city keeps a copy of its own
    channel = draft["job"]["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3Uri"]
    assert channel == "s3://b/{city}/"
    assert all(set(city) == {"name"} for city in draft["cities"])


def test_a_city_tag_and_cities_win_over_the_guess(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tagged = untagged("lima")
    tagged["Tags"].append({"Key": CITY_TAG, "Value": "lima-centro"})
    requests = [untagged("oslo"), untagged("caen"), tagged]
    assert main(import_files(tmp_path, requests)) == 0
    assert "cities guessed from the job names: oslo, caen (name them" in capsys.readouterr().err
    assert [city["name"] for city in drafted(tmp_path)["cities"]] == ["oslo", "caen", "lima-centro"]
    assert main(import_files(tmp_path, requests, "--force", "--cities", "a,b,c")) == 0
    assert "guessed" not in capsys.readouterr().err
    assert [city["name"] for city in drafted(tmp_path)["cities"]] == ["a", "b", "c"]


def test_without_a_sensible_guess_each_city_is_its_whole_name_and_import_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = [untagged("oslo", "2026-11-28"), untagged("oslo", "2026-11-29")]
    assert main(import_files(tmp_path, requests)) == 0
    err = capsys.readouterr().err
    assert (
        "note: no city guessed from the job names: demand-oslo-2026-11-28 and demand-oslo-2026-11-29 would both "
        "be city 'oslo' (one city imported twice?); each city is named after its whole job name (name them with "
        "--cities)"
    ) in err
    names = [city["name"] for city in drafted(tmp_path)["cities"]]
    assert names == ["demand-oslo-2026-11-28", "demand-oslo-2026-11-29"]


def test_one_job_alone_keeps_its_whole_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(import_files(tmp_path, [untagged("oslo")])) == 0
    err = capsys.readouterr().err
    assert "guess" not in err
    assert [city["name"] for city in drafted(tmp_path)["cities"]] == ["demand-oslo-2026-11-28-02-00-00"]


# -------------------------------------------------------------------------------------------------- the quotas


class OneSession:
    """A boto3 session whose service-quotas client is ``client`` (a real one, answered by botocore's Stubber)."""

    def __init__(self, client: Any) -> None:
        self.client_made: Any = client

    def client(self, service: str, **_: Any) -> Any:
        assert service == "service-quotas"
        return self.client_made


def quotas_client() -> Any:
    import boto3

    return boto3.client(
        "service-quotas", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def test_quotas_refused_by_service_quotas_say_which_permission() -> None:
    from botocore.stub import Stubber

    client = quotas_client()
    with Stubber(client) as stubber:
        stubber.add_client_error("list_service_quotas", "AccessDeniedException", "not allowed")
        reading = _account_quotas(OneSession(client), "us-east-1", None, ["ml.m5.xlarge"])
    assert reading.found == {}
    assert reading.why_not is not None
    assert "AccessDeniedException" in reading.why_not
    assert "grant servicequotas:ListServiceQuotas" in reading.why_not


def test_quotas_are_read_from_the_listing() -> None:
    from botocore.stub import Stubber

    client = quotas_client()
    rows = [
        {"QuotaName": "ml.m5.xlarge for training job usage", "Value": 20.0},
        {"QuotaName": "ml.m5.xlarge for training warm pool usage", "Value": 6.0},
    ]
    with Stubber(client) as stubber:
        stubber.add_response("list_service_quotas", {"Quotas": rows})
        reading = _account_quotas(OneSession(client), "us-east-1", None, ["ml.m5.xlarge"])
    assert reading == QuotaReading(found={"ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=6)})
