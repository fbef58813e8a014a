"""The quotas a run keeps to: the lower of the spec's and the account's, the account's when the spec has none."""

from __future__ import annotations

import dataclasses

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.preflight.effective import effective_quotas

SMALL = "dags/fleets/small.yaml"  # m5.xlarge 6/3/4, m5.2xlarge 2/1


def test_the_lower_of_spec_and_account_wins_field_by_field_with_a_warning_where_the_account_is_lower() -> (
    None
):
    spec = load_fleet_spec(SMALL)
    account = {
        "ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=8, spot_instances=10),
        "ml.m5.2xlarge": InstanceQuota(instances=2, warm_pools=1),
    }
    planned, notes = effective_quotas(spec, account)
    assert planned.quotas["ml.m5.xlarge"] == InstanceQuota(instances=4, warm_pools=3, spot_instances=4)
    assert planned.quotas["ml.m5.2xlarge"] == InstanceQuota(instances=2, warm_pools=1)
    warnings = [n.text for n in notes if n.level == "warning"]
    assert warnings == [
        "quotas.ml.m5.xlarge.instances: the spec says 6, the account allows 4: planning with 4 (set it to 4 in the "
        "spec)"
    ]
    infos = [n.text for n in notes if n.level == "info"]
    assert any("warm_pools: the spec says 3, the account allows 8: planning with 3" in t for t in infos)
    assert spec.quotas["ml.m5.xlarge"].instances == 6  # the spec itself is left as it was


def test_a_spec_without_quotas_takes_the_accounts() -> None:
    spec = dataclasses.replace(load_fleet_spec(SMALL), quotas_given=False)
    account = {
        "ml.m5.xlarge": InstanceQuota(instances=40, warm_pools=20),
        "ml.m5.2xlarge": InstanceQuota(instances=3, warm_pools=0),
    }
    planned, notes = effective_quotas(spec, account)
    assert planned.quotas == account
    assert any("none in the spec; the account's: 40 instances, 20 warm pools" in n.text for n in notes)
    zero = [n.text for n in notes if n.level == "warning"]
    assert len(zero) == 1
    assert "ml.m5.2xlarge" in zero[0]
    assert "warm-pool quota is 0" in zero[0]


def test_a_type_the_account_does_not_list_keeps_the_specs_with_a_warning() -> None:
    spec = load_fleet_spec(SMALL)
    planned, notes = effective_quotas(spec, {"ml.m5.xlarge": spec.quotas["ml.m5.xlarge"]})
    assert planned.quotas == spec.quotas
    assert [n.level for n in notes] == ["warning"]
    assert "ml.m5.2xlarge" in notes[0].text
