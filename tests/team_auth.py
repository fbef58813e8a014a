"""Airflow's simple auth manager with per-DAG readers, for the tests of what a reader of one DAG sees.

The simple auth manager decides by role alone (a viewer reads every DAG). Teams on one Airflow are kept apart by a
real auth manager's per-DAG permissions; this one adds exactly that to the simple one: a user named in
:data:`TEAMS` may read only the DAGs listed there (their role still decides everything else). Selected with
``AIRFLOW__CORE__AUTH_MANAGER=team_auth.TeamAuthManager`` (``tests/`` is on the path).
"""

from __future__ import annotations

from typing import Any

from airflow.api_fastapi.auth.managers.simple.simple_auth_manager import SimpleAuthManager

#: user name → the DAG ids that user may read
TEAMS: dict[str, set[str]] = {"quick-team": {"fleetview_quick"}}


class TeamAuthManager(SimpleAuthManager):
    def is_authorized_dag(
        self, *, method: Any, user: Any, access_entity: Any = None, details: Any = None
    ) -> bool:
        allowed = TEAMS.get(user.get_name())
        if allowed is not None and (details is None or details.id not in allowed):
            return False
        return bool(
            super().is_authorized_dag(method=method, user=user, access_entity=access_entity, details=details)
        )
