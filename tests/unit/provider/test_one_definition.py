"""Rules defined once: the training-job statuses and throttling codes live in ``jobs/statuses.py`` — with what a
job's state means (the Available pool status, a settled job, one holding capacity) — and the reading of an AWS error
code in ``jobs/errors.py``; the keep-alive
API maximum in ``fleetspec/model.py``, the DAG's task ids, XCom keys, DAG tag and default intervals in
``contract.py``; no other module of the package writes them out again (the simulator included). Beyond those, no
module-level constant of a literal value (``28 * 24 * 3600``, a timedelta, a set of strings …) is defined in two
modules, unless ALLOWED_TWINS says why the two mean different things.
Read from the source's syntax tree, so comments and docstrings do not count."""

from __future__ import annotations

import ast
import datetime as dt
import operator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "provider" / "sagemaker_fleet"
STATUS_WORDS = {"Completed", "Failed", "Stopped", "InProgress", "Stopping"}
THROTTLE_WORDS = {"ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded"}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def set_literals(tree: ast.AST) -> list[set[str]]:
    """The string members of every set literal (``{…}``, ``frozenset({…})``, ``frozenset([…])``)."""
    found = []
    for node in ast.walk(tree):
        items = None
        if isinstance(node, ast.Set):
            items = node.elts
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "frozenset"
            and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple, ast.Set))
        ):
            items = node.args[0].elts
        if items is not None:
            found.append({e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)})
    return found


def test_the_walk_sees_the_one_definition() -> None:
    tree = ast.parse((PACKAGE / "jobs" / "statuses.py").read_text())
    literals = set_literals(tree)
    assert {"Completed", "Failed", "Stopped"} in literals
    assert THROTTLE_WORDS in literals


def test_no_other_module_spells_out_the_statuses_or_the_throttling_codes() -> None:
    offenders = []
    for path in modules():
        if path == PACKAGE / "jobs" / "statuses.py":
            continue
        for members in set_literals(ast.parse(path.read_text())):
            if len(members & STATUS_WORDS) >= 2 or len(members & THROTTLE_WORDS) >= 2:
                offenders.append(f"{path.relative_to(PACKAGE)}: {sorted(members)}")
    assert offenders == []


def test_the_keep_alive_maximum_is_written_once() -> None:
    # cost/gantt.py's TICK_STEPS has 21600 as six hours of a time axis, not the API's bound
    offenders = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() not in ("fleetspec/model.py", "cost/gantt.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value == 21600 and not isinstance(node.value, bool)
    ]
    assert offenders == []


# The DAG's contract (contract.py): each name is assigned there and nowhere else (importing it is fine), and its task
# ids, XCom key and DAG tag are not written out again as string literals (docstrings do not count, see below).
SHARED_MODULE = "contract.py"
SHARED_NAMES = {
    "PLAN_TASK_ID",
    "TRAIN_TASK_ID",
    "RELEASE_TASK_ID",
    "REPORT_TASK_ID",
    "OUTCOME_TASK_ID",
    "NOTIFY_TASK_ID",
    "PLAN_XCOM_KEY",
    "SUMMARY_XCOM_KEY",
    "CITIES_XCOM_KEY",
    "FLEET_DAG_TAG",
    "POLL_INTERVAL",
    "CAPACITY_RETRY_SECONDS",
    "CAPACITY_TIMEOUT_SECONDS",
    "task_try_id",
    "train_task_id",
    "train_task_chunk",
    "cities_task_id",
    "cities_xcom_key",
}
#: Literals too common to ban ("plan", "train", "outcome" and "summary" are also CLI commands, a channel's name or
#: JSON fields; "return_value" is Airflow's own key); the names above stand for them. "cities_" is the head of
#: ``cities_task_id``'s ids.
SHARED_LITERALS = {"release_pools", "cost_report", "notify", "cities_"}


def assigned_names(tree: ast.AST) -> list[tuple[str, int]]:
    """Module-level and class-level names bound by assignment, ``def`` or ``class`` (not by import)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [(t.id, node.lineno) for t in targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node.lineno))
    return found


def docstring_ids(tree: ast.AST) -> set[int]:
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def code_strings(tree: ast.AST) -> list[tuple[str, int]]:
    """String constants that are not docstrings."""
    docstrings = docstring_ids(tree)
    return [
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_the_contract_defines_its_names() -> None:
    tree = ast.parse((PACKAGE / SHARED_MODULE).read_text())
    assert SHARED_NAMES <= {name for name, _ in assigned_names(tree)}
    assert SHARED_LITERALS <= {value for value, _ in code_strings(tree)}


def test_the_contract_imports_nothing_of_the_package() -> None:
    tree = ast.parse((PACKAGE / SHARED_MODULE).read_text())
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert [name for name in imported if name and name.split(".")[0] in ("sagemaker_fleet", "airflow")] == []


def test_no_other_module_defines_a_contract_name_again() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {name}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() != SHARED_MODULE
        for name, line in assigned_names(ast.parse(path.read_text()))
        if name in SHARED_NAMES
    ]
    assert offenders == []


def test_no_other_module_writes_out_a_contract_task_id() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {value!r}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() != SHARED_MODULE
        for value, line in code_strings(ast.parse(path.read_text()))
        if value in SHARED_LITERALS
    ]
    assert offenders == []


# Any module-level constant: one whose value is a literal (a number, a string, arithmetic of numbers such as
# ``28 * 24 * 3600``, a timedelta of literals, a set, tuple or list of such) is defined in one module only; another
# module that needs it imports it. Equal values are one rule unless the allow-list below says why they are not.
#: Numbers this close to zero (counts, factors, shares, single-digit seconds) recur with unrelated meanings; like
#: "", the booleans and None they are no rule of their own.
SMALL_NUMBER = 10
_TIMEDELTA_UNITS = {"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}

#: Module-level constants that share a value with another module's and mean something else; each reason says what.
#: Entries are ``module:NAME`` (paths under ``sagemaker_fleet``); one that no longer shares its value fails below.
ALLOWED_TWINS: dict[str, set[str]] = {
    "the user-facing intervals' defaults (contract.py; the Cadence takes them): a 30 s poll interval is not the "
    "default volume's 30 GB, a six-hour wait for capacity not the keep-alive API's six-hour maximum "
    "(fleetspec/model.py)": {
        "contract.py:POLL_INTERVAL",
        "contract.py:CAPACITY_TIMEOUT_SECONDS",
    },
    "two APIs' largest pages, 100 each as CreateTrainingJob's hyperparameter and environment limits "
    "(fleetspec/model.py) are: ListTrainingJobs' and ListServiceQuotas'": {
        "jobs/paging.py:PAGE_SIZE",
        "jobs/service_quotas.py:PAGE_MAX",
    },
    "a unit (prices are per hour), not the keep-alive the developer guide documents (fleetspec/model.py)": {
        "cost/model.py:SECONDS_PER_HOUR",
    },
    "input limits (fleetspec/limits.py): 60 characters of a quoted value are not the capacity back-off's 60 s "
    "(contract.py), a 2,000-character refusal not the paging guard's 2,000 pages (jobs/paging.py), a city name's "
    "200 characters not the pilot's 200 rows of data (cli/pilot/data.py)": {
        "fleetspec/limits.py:SHOWN_VALUE_MAX",
        "fleetspec/limits.py:MESSAGE_MAX",
        "fleetspec/limits.py:CITY_NAME_MAX",
    },
    "the training channel's name in InputDataConfig, not the training task's id (contract.py)": {
        "fleetspec/job_fields.py:TRAIN_CHANNEL",
    },
    "the metrics' name prefix, not the configuration section (settings.py): both are the package's name": {
        "observability/metrics.py:METRIC_PREFIX",
    },
    "the task log's pace while a city waits, not the default volume's GB (fleetspec/model.py) nor the listing's "
    "creation margin (dispatch/state.py)": {
        "triggers/city_io.py:WAIT_LOG_FIRST",
        "triggers/city_io.py:WAIT_LOG_EVERY",
    },
    "the smallest margin a kept pool gets over a gap, not the capacity back-off's base (contract.py)": {
        "plan/keepalive.py:MIN_MARGIN_SECONDS",
    },
    "how long `prices refresh` waits on the Price List's socket, not the capacity back-off's base (contract.py)": {
        "cost/offers_fetch.py:DEFAULT_TIMEOUT_SECONDS",
    },
    "rows of the report's city chart, not the tags SageMaker allows on a job (fleetspec/names.py)": {
        "cost/charts.py:CITY_ROWS",
    },
    "a thousand of three other things than the triggerer's default capacity (fleetspec/triggerer.py): the "
    "timeline's width in pixels, the run note's length Airflow takes, cities per mapped task under Airflow's "
    "max_map_length": {
        "cost/gantt.py:PLOT_WIDTH",
        "runnote/text.py:NOTE_MAX_CHARS",
        "operators/cities.py:CITIES_PER_TASK",
    },
    "the Fleet view's describes per refresh on the api-server, not the triggerer's per sweep "
    "(dispatch/account.py): two budgets tuned apart": {
        "fleetview/source.py:OTHER_DESCRIBES_PER_REFRESH",
    },
    "a model package's description and approval description, 1024 characters each, not an S3 URI's "
    "(fleetspec/model.py)": {
        "registry/packages.py:TEXT_MAX",
    },
    "the planner's largest unit scheduled exactly, in jobs, not the listings' page cap (jobs/paging.py)": {
        "plan/planner.py:EXACT_JOBS",
    },
    "the pilot's own figures: S3's DeleteObjects limit (not the triggerer's capacity, fleetspec/triggerer.py); its "
    "stores' expected minute of work, its minute of orchestration latency and its shortest MaxRuntime (not the "
    "capacity back-off, contract.py); the clean-up's slack (not the listing's creation margin, dispatch/state.py); "
    "its jobs' MaxRuntime and its longest sweep interval (not the naive strategy's keep-alive, simulate/options.py)": {
        "cli/pilot/cleanup.py:DELETE_BATCH",
        "cli/pilot/fleet.py:EXPECTED_SECONDS",
        "cli/pilot/fleet.py:ORCHESTRATION_LATENCY_SECONDS",
        "cli/pilot/settings.py:MIN_MAX_RUNTIME",
        "cli/pilot/real_run.py:SETTLE_SLACK_SECONDS",
        "cli/pilot/settings.py:DEFAULT_MAX_RUNTIME",
        "cli/pilot/settings.py:MAX_POLL_INTERVAL",
    },
}


def literal_value(node: ast.expr) -> object:
    """The value of a literal expression (numbers as floats, a timedelta as seconds, a collection as the frozenset
    of its members), or None for anything else (a name, a call, an f-string)."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
        return float(node.value) if isinstance(node.value, int | float) else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = literal_value(node.operand)
        return -value if isinstance(value, float) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = literal_value(node.left), literal_value(node.right)
        if isinstance(left, float) and isinstance(right, float):
            return float(_ARITHMETIC[type(node.op)](left, right))
        return None
    if isinstance(node, ast.Call):
        return _call_value(node)
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        members = [literal_value(item) for item in node.elts]
        return frozenset(members) if members and None not in members else None
    return None


def _call_value(node: ast.Call) -> object:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name in ("frozenset", "set", "tuple") and len(node.args) == 1 and not node.keywords:
        return literal_value(node.args[0])
    if name == "timedelta" and not node.args and node.keywords:
        units = {keyword.arg: literal_value(keyword.value) for keyword in node.keywords}
        if set(units) <= _TIMEDELTA_UNITS and all(isinstance(v, float) for v in units.values()):
            return dt.timedelta(**units).total_seconds()  # type: ignore[arg-type]
    return None


def trivial(value: object) -> bool:
    return value in ("", None) or (isinstance(value, float) and abs(value) <= SMALL_NUMBER)


def module_constants(tree: ast.Module) -> list[tuple[str, int, object]]:
    """(name, line, value) of each module-level assignment of a literal value to one name (dunders left out)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and not target.id.startswith("__"):
            literal = literal_value(value)
            if not trivial(literal):
                found.append((target.id, node.lineno, literal))
    return found


def constants_by_value() -> dict[object, list[str]]:
    """Every module-level literal constant of the package, grouped by value: ``{value: ["module:NAME", …]}``."""
    groups: dict[object, list[str]] = {}
    for path in modules():
        module = path.relative_to(PACKAGE).as_posix()
        for name, _, value in module_constants(ast.parse(path.read_text())):
            groups.setdefault(value, []).append(f"{module}:{name}")
    return groups


def test_the_constant_walk_sees_literal_values() -> None:
    tree = ast.parse(
        "import datetime as dt\n"
        "A = 28 * 24 * 3600\nB = dt.timedelta(days=28)\nC: frozenset[str] = frozenset({'x', 'y'})\n"
        "D = ('y', 'x')\nE = 3\nF = A\nG = f'{A}'\n__all__ = ['A']\nH = -3600.0\n"
    )
    assert module_constants(tree) == [
        ("A", 2, 2419200.0),
        ("B", 3, 2419200.0),
        ("C", 4, frozenset({"x", "y"})),
        ("D", 5, frozenset({"x", "y"})),
        ("H", 10, -3600.0),
    ]
    assert "fleetspec/model.py:MAX_RUNTIME_LIMIT" in constants_by_value()[2419200.0]


def test_no_constant_is_defined_in_two_modules() -> None:
    allowed = set().union(*ALLOWED_TWINS.values())
    offenders = {}
    for value, names in constants_by_value().items():
        counted = [name for name in names if name not in allowed]
        if len({name.split(":")[0] for name in counted}) > 1:
            offenders[repr(value)] = counted
    assert offenders == {}, "give each value one owner and import it, or say in ALLOWED_TWINS why it differs"


def test_every_allowed_twin_still_shares_its_value() -> None:
    groups = constants_by_value()
    sharing = {name for names in groups.values() if len(names) > 1 for name in names}
    stale = sorted(name for names in ALLOWED_TWINS.values() for name in names if name not in sharing)
    assert stale == [], "these no longer share a value with another constant: take them out of ALLOWED_TWINS"


# The run's clock: every interval of the dispatch and its triggerer shell is a field of dispatch/cadence.py's Cadence
# (the user-facing settings' defaults excepted: contract.py's, which the Cadence takes). A module-level *_SECONDS or
# *_INTERVAL number in dispatch/ or triggers/ is one more way for an interval to arrive, which ``simulate`` and a
# sped-up benchmark cannot scale.
CLOCK_PACKAGES = ("dispatch", "triggers")


def clock_constants(tree: ast.Module) -> list[tuple[str, int]]:
    """Module-level names ending in _SECONDS or _INTERVAL bound to a number (a literal or arithmetic of literals)."""
    found = []
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        for target in targets:
            if (
                isinstance(target, ast.Name)
                and target.id.endswith(("_SECONDS", "_INTERVAL"))
                and value is not None
                and isinstance(literal_value(value), float)
            ):
                found.append((target.id, node.lineno))
    return found


def test_the_clock_walk_sees_an_interval() -> None:
    tree = ast.parse("RETRY_SECONDS = 2 * 30.0\nPOLL_INTERVAL: float = 5\nNAME = 'x_SECONDS'\nCOUNT = 3\n")
    assert clock_constants(tree) == [("RETRY_SECONDS", 1), ("POLL_INTERVAL", 2)]


def test_no_dispatch_or_triggerer_module_keeps_an_interval_outside_the_cadence() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {name}"
        for package in CLOCK_PACKAGES
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for name, line in clock_constants(ast.parse(path.read_text()))
    ]
    assert offenders == [], "make it a field of dispatch/cadence.py's Cadence (with what it bounds and why)"


# The account's jobs are read by one set of rules: jobs/statuses.py spells the warm-pool status "Available"
# (POOL_AVAILABLE) and decides whether a job is settled (terminal, no pool left: POOL_SETTLED) or holds capacity
# (running, or keeping an Available pool); jobs/errors.py reads the code of a refused call. The sweep, the Fleet
# view, the cost report, the command line and the simulator import them; none decides them again.
STATUS_HOME = "jobs/statuses.py"
ERROR_HOME = "jobs/errors.py"


def pool_available_spelled(tree: ast.AST) -> list[int]:
    """Lines where code writes the string "Available" (docstrings and ``Literal[...]`` types do not count: the
    simulator's engine types its own statuses)."""
    skipped = docstring_ids(tree) | {
        id(const)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"
        for const in ast.walk(node.slice)
    }
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == "Available" and id(node) not in skipped
    )


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _reads_error(node: ast.AST) -> bool:
    """``….get("Error", …)`` or ``exc.response["Error"]``: a ClientError's code or message read by hand."""
    if isinstance(node, ast.Call):
        func, args = node.func, node.args
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "get"
            and bool(args)
            and isinstance(args[0], ast.Constant)
            and args[0].value == "Error"
        )
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "Error"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "response"
    )


def rederived_rules(tree: ast.AST) -> list[tuple[str, int]]:
    """Expressions that decide a job-state rule again instead of calling it: a test against the settled pool
    statuses (``settled``), "running or keeping an Available pool" (``holds_capacity``), a ClientError's
    ``response["Error"]`` read by hand (``error_code``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "POOL_SETTLED":
            found.append(("settled", node.lineno))
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            names = _names(node)
            if {"ACTIVE", "ACTIVE_STATUSES"} & names and "POOL_AVAILABLE" in names:
                found.append(("holds_capacity", node.lineno))
        elif _reads_error(node):
            found.append(("error_code", node.lineno))
    return sorted(found, key=lambda rule: rule[1])


def test_the_rule_walk_sees_a_twin() -> None:
    tree = ast.parse(
        "from typing import Literal\n"
        "PoolStatus = Literal['Available', 'Reused']\n"
        "def idle(job):\n"
        "    'Available, or not.'\n"
        "    return job.pool == 'Available'\n"
        "def final(job):\n"
        "    return job.status in TERMINAL and job.pool in POOL_SETTLED\n"
        "def holds(job):\n"
        "    return job.status in ACTIVE or job.pool == POOL_AVAILABLE\n"
        "def code(exc):\n"
        "    return exc.response.get('Error', {}).get('Code')\n"
    )
    assert pool_available_spelled(tree) == [5]
    assert rederived_rules(tree) == [("settled", 7), ("holds_capacity", 9), ("error_code", 11)]


def test_the_rules_have_their_home() -> None:
    statuses = ast.parse((PACKAGE / STATUS_HOME).read_text())
    assert {"POOL_AVAILABLE", "settled", "holds_capacity"} <= {name for name, _ in assigned_names(statuses)}
    assert pool_available_spelled(statuses) != []
    errors = ast.parse((PACKAGE / ERROR_HOME).read_text())
    assert {"error_code", "error_message"} <= {name for name, _ in assigned_names(errors)}
    assert [rule for rule, _ in rederived_rules(errors)] == ["error_code", "error_code"]  # code, message


def test_no_other_module_spells_the_available_pool_status() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() != STATUS_HOME
        for line in pool_available_spelled(ast.parse(path.read_text()))
    ]
    assert offenders == [], "import POOL_AVAILABLE from sagemaker_fleet.jobs.statuses"


def test_no_other_module_decides_a_job_state_rule_again() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line} {rule}"
        for path in modules()
        if path.relative_to(PACKAGE).as_posix() not in (STATUS_HOME, ERROR_HOME)
        for rule, line in rederived_rules(ast.parse(path.read_text()))
    ]
    assert offenders == [], (
        "call jobs/statuses.py's settled or holds_capacity, or jobs/errors.py's error_code"
    )


#: The AWS connection's fields, defined once: ``hooks/connection.py``'s ``AwsConnection``.
AWS_CONNECTION_NAMES = {"aws_conn_id", "region_name", "verify", "botocore_config"}
#: Where two or more of them may still be written as parameters, and why.
AWS_CONNECTION_PARAMETERS_ALLOWED = {
    # Airflow reads an operator's keywords from its constructors' signatures (``default_args``, ``.partial()``):
    # the base operator names them, as the Amazon provider's ``AwsBaseOperator`` does, with AwsConnection's defaults
    "operators/aws.py:FleetAwsOperator.__init__",
}


def connection_definitions(path: Path) -> list[str]:
    """Where ``path`` writes out two or more of the connection's names: as a function's parameters, a class's
    fields or the strings of a tuple, list or set literal."""
    found = []
    tree = ast.parse(path.read_text())
    for parent in ast.walk(tree):
        for node in ast.iter_child_nodes(parent):
            where = f"{path.relative_to(PACKAGE)}:{getattr(parent, 'name', '')}.{getattr(node, 'name', '')}"
            names: set[str] = set()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
            elif isinstance(node, ast.ClassDef):
                names = {
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                }
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                names = {
                    e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
            if len(names & AWS_CONNECTION_NAMES) >= 2:
                found.append(where.replace(":.", ":"))
    return found


def test_the_connection_walk_sees_the_one_definition() -> None:
    assert connection_definitions(PACKAGE / "hooks" / "connection.py")[:1] == [
        "hooks/connection.py:AwsConnection"
    ]


def test_the_aws_connection_fields_are_defined_once() -> None:
    """The four names of the Amazon provider's ``AwsBaseHookMixin`` are AwsConnection's fields; operators, sensors
    and triggers take the value (or pass the keywords on to the one base that must name them)."""
    found = [
        where
        for path in modules()
        if path != PACKAGE / "hooks" / "connection.py"
        for where in connection_definitions(path)
    ]
    assert sorted(found) == sorted(AWS_CONNECTION_PARAMETERS_ALLOWED)
