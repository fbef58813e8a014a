"""``register:`` as written (:class:`RegisterLayer`) and as resolved for a city (:class:`RegisterSpec`): the model
registry's gate (docs/guides/model-registry.md; the checks are :mod:`~sagemaker_fleet.fleetspec.register`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, StrictStr

from sagemaker_fleet.fleetspec.layer_types import AwsFields, Finite, Layer
from sagemaker_fleet.fleetspec.names import GROUP_TAGS, TAGS_MAX
from sagemaker_fleet.fleetspec.placeholders import render, render_value

#: ``register.direction``: whether a lower or a higher value of the gate's metric is the better model.
Direction = Literal["minimize", "maximize"]
#: ``register.approve``: the ModelApprovalStatus a model that passes the gate is registered with.
ApprovalStatus = Literal["Approved", "PendingManualApproval"]
#: ``register.losers``: a model that does not pass is registered ``Rejected`` (with the reason), or not at all.
LoserPolicy = Literal["reject", "skip"]
DEFAULT_APPROVE: ApprovalStatus = "Approved"
DEFAULT_LOSERS: LoserPolicy = "reject"
#: ``register.tags``: the model package group's own tags, beside the provider's (fleet and city).
REGISTER_TAGS_MAX = TAGS_MAX - len(GROUP_TAGS)
_Number = Finite | StrictInt
_Job = AwsFields
_Layer = Layer


class RegisterLayer(_Layer):
    """``register``: each city's trained model registered in its own model package group, through a gate that
    compares it with the city's model in service (docs/guides/model-registry.md). Merged key by key over
    ``defaults.register`` and the fleet's ``register`` (``inference`` as ``job:`` merges); ``register: null`` on a
    city leaves it out. ``margin`` and ``margin_abs`` are one rule: the one a layer writes replaces the other."""

    group: StrictStr | None = Field(
        None,
        description="required: the model package group of each city, a name with {city} (and {fleet}), such as "
        "`{fleet}-{city}`: 1-63 letters, digits and '-' once filled; created when missing",
    )
    metric: Annotated[StrictStr, Field(min_length=1, max_length=255)] | None = Field(
        None,
        description="required: the final metric the gate compares, the Name of one of the job's "
        "MetricDefinitions (such as validation:rmse)",
    )
    direction: Direction | None = Field(
        None, description="required: `minimize` (lower is better: a loss, an RMSE) or `maximize`"
    )
    margin: Annotated[_Number, Field(ge=0, lt=1)] | None = Field(
        None,
        description="relative: a new model must beat the city's champion by this share of the champion's "
        "value (0.02: 2 %); give it or margin_abs",
    )
    margin_abs: Annotated[_Number, Field(ge=0)] | None = Field(
        None, description="absolute: a new model must beat the champion by this much, in the metric's unit"
    )
    bound: _Number | None = Field(
        None,
        description="what a city's first model (no Approved champion) must reach to be approved: at most this "
        "when minimizing, at least when maximizing (absent: a first model waits for a person, "
        "PendingManualApproval)",
    )
    approve: ApprovalStatus | None = Field(
        None,
        description=f"the status a model that passes gets: Approved, or PendingManualApproval when people approve "
        f"deployments (absent: {DEFAULT_APPROVE})",
    )
    losers: LoserPolicy | None = Field(
        None,
        description=f"a model that does not pass: `reject` registers it Rejected with the reason, `skip` "
        f"registers nothing (absent: {DEFAULT_LOSERS})",
    )
    tags: dict[StrictStr, StrictStr] | None = Field(
        None,
        description=f"tags of each model package group when it is created, at most {REGISTER_TAGS_MAX}, "
        "`key: value`",
    )
    inference: _Job | None = Field(
        None,
        description="required: CreateModelPackage's InferenceSpecification in AWS's names (Containers with the "
        "serving Image, SupportedContentTypes, …); {city}, {fleet} and {run_key} are filled; each container's "
        "ModelDataUrl is the job's model",
    )


@dataclass(frozen=True)
class RegisterSpec:
    """A city's ``register:`` layers merged and checked: the gate's rule and what each package is registered
    with. Cities with the same layers share one value; ``group`` and ``inference`` keep their placeholders
    (:meth:`group_name`, :meth:`inference_for`)."""

    group: str
    metric: str
    direction: Direction
    #: CreateModelPackage's InferenceSpecification as canonical JSON, placeholders not filled
    inference: str
    #: exactly one of the two is set: relative (a share of the champion's value) or absolute
    margin: float | None = None
    margin_abs: float | None = None
    #: None: a city's first model waits for a person (PendingManualApproval)
    bound: float | None = None
    approve: ApprovalStatus = DEFAULT_APPROVE
    losers: LoserPolicy = DEFAULT_LOSERS
    tags: tuple[tuple[str, str], ...] = ()

    def group_name(self, fleet: str, city: str) -> str:
        """The city's model package group."""
        return render(self.group, {"fleet": fleet, "city": city})

    def inference_for(self, fleet: str, city: str, run_key: str) -> dict[str, Any]:
        """The InferenceSpecification of a package of the city's run (placeholders filled, fresh containers)."""
        value = render_value(json.loads(self.inference), {"fleet": fleet, "city": city, "run_key": run_key})
        assert isinstance(value, dict)
        return value
