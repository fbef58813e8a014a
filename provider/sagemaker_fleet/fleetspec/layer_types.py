"""What the spec's pydantic layers are made of: a strict, frozen layer closed to unknown keys, and the value types
several layers share."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictStr


class Layer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


#: A number of YAML such as ``1e400`` is infinite and ``.nan`` is not a number: neither is a usable value.
Finite = Annotated[StrictFloat, Field(allow_inf_nan=False)]
#: A mapping of an AWS request's fields in AWS's names (``job:``, ``register.inference``), checked against botocore's
#: model by the builder.
AwsFields = dict[StrictStr, object]
