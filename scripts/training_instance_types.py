#!/usr/bin/env python3
"""Write ``provider/sagemaker_fleet/data/training_instance_types.json`` from the botocore service model installed.

    .venv/bin/python scripts/training_instance_types.py          # rewrite the file
    .venv/bin/python scripts/training_instance_types.py --check  # exit 1 when the file differs

The list is the ``TrainingInstanceType`` enum of SageMaker's service model shipped with botocore
(``botocore/data/sagemaker/2017-07-24/service-2.json.gz``): the instance types CreateTrainingJob accepts. The fleet
spec checks instance types against the file, not botocore, because the spec's layer imports no AWS SDK
(docs/contributing/architecture.md). ``tests/unit/fleetspec/test_instance_types.py`` fails when the pinned botocore's enum
and the file part; run this script after a botocore upgrade.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "provider" / "sagemaker_fleet" / "data" / "training_instance_types.json"


def generate() -> str:
    """The file's text for the installed botocore."""
    import botocore
    from botocore.loaders import Loader

    model = Loader().load_service_model("sagemaker", "service-2")
    types = model["shapes"]["TrainingInstanceType"]["enum"]
    data = {
        "schema": 1,
        "source": (
            f"botocore {botocore.__version__}, data/sagemaker/{model['metadata']['apiVersion']}/service-2.json: "
            "the TrainingInstanceType enum (the ResourceConfig.InstanceType values CreateTrainingJob accepts)"
        ),
        "instance_types": sorted(types),
    }
    return json.dumps(data, indent=2) + "\n"


def main(argv: list[str]) -> int:
    text = generate()
    if "--check" in argv:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print(
            f"{TARGET.relative_to(ROOT)}: {'up to date' if same else 'differs from the installed botocore'}"
        )
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
