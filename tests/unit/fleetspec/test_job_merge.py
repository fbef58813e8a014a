"""The one merge rule of ``job:`` layers (and of a template onto the provider's request)."""

from __future__ import annotations

from sagemaker_fleet.fleetspec.job_merge import merge_job, without


def channel(name: str, **extra: object) -> dict[str, object]:
    return {"ChannelName": name, **extra}


def test_mappings_merge_lists_replace() -> None:
    base = {"ResourceConfig": {"InstanceCount": 1, "VolumeSizeInGB": 30}, "Args": ["a", "b"]}
    over = {"ResourceConfig": {"VolumeSizeInGB": 50}, "Args": ["c"]}
    assert merge_job(base, over) == {
        "ResourceConfig": {"InstanceCount": 1, "VolumeSizeInGB": 50},
        "Args": ["c"],
    }
    assert base["ResourceConfig"] == {"InstanceCount": 1, "VolumeSizeInGB": 30}  # unchanged


def test_channels_merge_by_name_and_tags_by_key_new_ones_appended() -> None:
    base = {
        "InputDataConfig": [channel("train", InputMode="File"), channel("val")],
        "Tags": [{"Key": "a", "Value": "1"}],
    }
    over = {
        "InputDataConfig": [channel("val", ContentType="csv"), channel("extra")],
        "Tags": [{"Key": "a", "Value": "2"}, {"Key": "b", "Value": "3"}],
    }
    merged = merge_job(base, over)
    assert merged["InputDataConfig"] == [
        channel("train", InputMode="File"),
        channel("val", ContentType="csv"),
        channel("extra"),
    ]
    assert merged["Tags"] == [{"Key": "a", "Value": "2"}, {"Key": "b", "Value": "3"}]


def test_a_data_source_of_another_kind_replaces_the_one_before() -> None:
    s3 = {"DataSource": {"S3DataSource": {"S3Uri": "s3://b/"}}}
    fsx = {"DataSource": {"FileSystemDataSource": {"FileSystemId": "fs-1"}}}
    merged = merge_job(
        {"InputDataConfig": [channel("train", **s3)]}, {"InputDataConfig": [channel("train", **fsx)]}
    )
    assert merged["InputDataConfig"] == [channel("train", **fsx)]


def test_without_drops_a_member_and_the_mappings_it_leaves_empty() -> None:
    assert without({"A": {"B": 1}, "C": 2}, ("A", "B")) == {"C": 2}
    assert without({"A": {"B": 1, "D": 3}}, ("A", "B")) == {"A": {"D": 3}}
    assert without({"C": 2}, ("A", "B")) == {"C": 2}
