"""botocore's model as the spec checks ``job:`` against it: converted once, with the SDK's version."""

from __future__ import annotations

import importlib.metadata

from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL


def test_the_model_is_createtrainingjob_s_input_read_once() -> None:
    model = BOTOCORE_MODEL.load()
    assert model is BOTOCORE_MODEL.load()
    assert model.version == importlib.metadata.version("boto3")
    request = model.request
    assert request.kind == "structure"
    assert request.required >= {"RoleArn", "TrainingJobName"}
    retry = request.members["RetryStrategy"].members["MaximumRetryAttempts"]
    assert (retry.kind, retry.low, retry.high) == ("integer", 1, 30)
    tags = request.members["Tags"]
    assert (tags.kind, tags.high, tags.item.kind if tags.item else None) == ("list", 50, "structure")
    assert "TrainingJobStatus" in model.described
    assert "TrainingJobStatus" not in request.members
