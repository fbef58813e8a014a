"""AwsConnection: the AWS connection a task or trigger talks through, defined once.

Its four fields are the ones the Amazon provider's operators take (``AwsBaseHookMixin``): ``aws_conn_id``,
``region_name``, ``verify``, ``botocore_config``. The fleet's operators keep them as attributes (Airflow renders
templates there) and read them back as one value; the triggers carry the value and store its fields under their
own names in the trigger row. Nothing here imports boto3 or the Amazon provider: a fleet DAG's file imports the
operators, and a city's task process only defers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar, Self


@dataclass(frozen=True)
class AwsConnection:
    """An Airflow AWS connection and what a task sets over it.

    :param aws_conn_id: the Airflow connection for AWS credentials (``None``: boto3's default chain).
    :param region_name: the AWS region (default: the connection's, then boto3's).
    :param verify: whether to verify SSL certificates, or a CA bundle's path.
    :param botocore_config: a botocore ``Config`` as a dict (the Amazon provider's hooks call it ``config``).
    """

    #: The fields an operator templates, as the Amazon provider's ``aws_template_fields`` has them (not the config).
    TEMPLATE_FIELDS: ClassVar[tuple[str, ...]] = ("aws_conn_id", "region_name", "verify")

    aws_conn_id: str | None = "aws_default"
    region_name: str | None = None
    verify: bool | str | None = None
    botocore_config: dict[str, Any] | None = None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The field names, which are also the keywords and attributes of every operator and trigger with one."""
        return tuple(field.name for field in fields(cls))

    @classmethod
    def of(cls, source: Any) -> Self:
        """The connection of ``source``, an operator or sensor keeping the fields as attributes (rendered)."""
        return cls(**{name: getattr(source, name) for name in cls.names()})

    def to_json(self) -> dict[str, Any]:
        """The fields by name (JSON values): the keyword arguments a trigger row stores."""
        return asdict(self)

    def hook_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of an ``AwsBaseHook`` on this connection (its ``config`` is the botocore config)."""
        kwargs = self.to_json()
        kwargs["config"] = kwargs.pop("botocore_config")
        return kwargs

    def with_defaults(self, botocore_config: Mapping[str, Any] | None) -> Self:
        """The connection with ``botocore_config``'s settings where its own config does not set them (its own win)."""
        if not botocore_config:
            return self
        return replace(self, botocore_config={**botocore_config, **(self.botocore_config or {})})


def aws_template_fields(*template_fields: str) -> tuple[str, ...]:
    """``template_fields`` with the connection's templated fields, sorted (the Amazon provider's helper, without
    importing it)."""
    return tuple(sorted({*AwsConnection.TEMPLATE_FIELDS, *template_fields}))
