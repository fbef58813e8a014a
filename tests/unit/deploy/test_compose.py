"""docker-compose.yaml and Dockerfile: the CeleryExecutor stack's structure, and its agreement with the docs.

No Docker engine runs where these tests run, so the compose file is checked as data (PyYAML): which services exist,
how they depend on each other, the Airflow settings they share, where the ``aws_default`` connection points, and
that what docs/guides/docker.md promises (UI URL, login, published ports, simulator speed) is what the file configures.
Values are read as compose runs them with no overriding environment: ``${NAME:-default}`` becomes ``default``, and
a required ``${NAME:?message}`` (every secret: compose refuses to start without it) becomes ``<NAME>``.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Mapping
from functools import cache
from graphlib import CycleError, TopologicalSorter
from importlib.util import find_spec
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from sagemaker_fleet.fleetspec.load import load_fleet_spec

REPO = Path(__file__).resolve().parents[3]
COMPOSE_FILE = REPO / "docker-compose.yaml"
DOCKERFILE = REPO / "Dockerfile"
DOCKER_DOC = REPO / "docs" / "guides" / "docker.md"
README = REPO / "README.md"

AIRFLOW_VERSION = "3.3.2"
AIRFLOW_SERVICES = (
    "airflow-init",
    "airflow-apiserver",
    "airflow-scheduler",
    "airflow-dag-processor",
    "airflow-triggerer",
    "airflow-worker",
)
SERVICES = {"postgres", "redis", "simulator", *AIRFLOW_SERVICES}
ONE_SHOT = {"airflow-init"}
CONTAINER_DAGS = "/opt/airflow/dags"

_VARIABLE = re.compile(r"\$\{(?P<name>[A-Za-z0-9_]+)(?::?-(?P<default>[^}]*)|:\?(?P<required>[^}]*))?\}")
_POOL_SET = re.compile(
    r"^airflow pools set (?P<name>\S+) (?P<slots>\d+) \"[^\"]*\"(?P<flags>.*)$", re.MULTILINE
)


def resolve(value: object) -> str:
    """A compose value as it runs with nothing overridden: ``${NAME:-default}`` → default, ``$$`` → ``$``."""
    parts = str(value).split("$$")
    return "$".join(_VARIABLE.sub(_substitute, part) for part in parts)


def _substitute(match: re.Match[str]) -> str:
    if match.group("required") is not None:
        return f"<{match.group('name')}>"
    return match.group("default") or ""


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    return loaded


def service(name: str) -> dict[str, Any]:
    found: dict[str, Any] = compose()["services"][name]
    return found


def environment(name: str) -> dict[str, str]:
    raw = service(name).get("environment") or {}
    if isinstance(raw, list):
        raw = dict(item.split("=", 1) for item in raw)
    return {key: resolve(value) for key, value in raw.items()}


def command(name: str) -> list[str]:
    raw = service(name).get("command") or []
    return [resolve(part) for part in (shlex.split(raw) if isinstance(raw, str) else raw)]


def depends_on(name: str) -> dict[str, str]:
    """{dependency: condition}; the short list form has no condition (compose's service_started)."""
    raw = service(name).get("depends_on") or {}
    if isinstance(raw, list):
        return {dependency: "service_started" for dependency in raw}
    return {dependency: (spec or {}).get("condition", "service_started") for dependency, spec in raw.items()}


def published_ports(name: str) -> dict[int, int]:
    """{host port: container port} of the service's ``ports``."""
    ports: dict[int, int] = {}
    for entry in service(name).get("ports") or []:
        if isinstance(entry, Mapping):
            ports[int(entry["published"])] = int(entry["target"])
            continue
        *host, container = resolve(entry).split(":")
        ports[int(host[-1] if host else container)] = int(container)
    return ports


def mounts(name: str) -> dict[str, str]:
    """{container path: source} of the service's volumes (short syntax)."""
    found: dict[str, str] = {}
    for entry in service(name).get("volumes") or []:
        source, target, *_ = resolve(entry).split(":")
        found[target] = source
    return found


def option_after(args: list[str], flag: str) -> str:
    assert flag in args, f"{flag} missing from {args}"
    return args[args.index(flag) + 1]


def demo_fleet_path() -> Path:
    """The fleet file the simulator serves, found on the host through the dags/ mount."""
    container_path = option_after(command("simulator"), "--fleet")
    assert container_path.startswith(CONTAINER_DAGS + "/"), container_path
    source = mounts("simulator")[CONTAINER_DAGS]
    return (REPO / source / container_path.removeprefix(CONTAINER_DAGS + "/")).resolve()


def init_script() -> str:
    return "\n".join(command("airflow-init"))


def known_airflow_options() -> set[tuple[str, str]]:
    """(section, key) of every option the installed Airflow, its Celery provider and this provider define."""
    from airflow.providers.celery.get_provider_info import get_provider_info

    from sagemaker_fleet.get_provider_info import get_provider_info as fleet_provider_info

    locations = find_spec("airflow")
    assert locations is not None
    assert locations.submodule_search_locations
    core = Path(next(iter(locations.submodule_search_locations))) / "config_templates" / "config.yml"
    sections = {
        **yaml.safe_load(core.read_text(encoding="utf-8")),
        **get_provider_info()["config"],
        **fleet_provider_info()["config"],
    }
    return {(section, key) for section, body in sections.items() for key in body["options"]}


# --------------------------------------------------------------------------------------------- structure


def test_the_stack_has_exactly_its_services() -> None:
    assert set(compose()["services"]) == SERVICES


def test_airflow_is_3_3_2_from_the_committed_hashed_set() -> None:
    """The image installs one pinned set, every file checked against its hashes, at the versions the tests run
    (the set is compiled inside requirements/constraints-py3.11.txt); then the provider alone, nothing resolved."""
    dockerfile = DOCKERFILE.read_text(encoding="utf-8")
    assert re.search(rf"^ARG AIRFLOW_VERSION={re.escape(AIRFLOW_VERSION)}$", dockerfile, re.MULTILINE)
    installs = re.findall(r"^RUN pip install (?:[^\n]*\\\n)*[^\n]*", dockerfile, re.MULTILINE)
    assert len(installs) == 2, "the pinned set, then the provider"
    pinned_set = re.search(r"--require-hashes --no-deps -r (\S+)", installs[0])
    assert pinned_set is not None, "the third-party packages must be installed by hash"
    assert "--no-deps --no-build-isolation" in installs[1], "the provider must resolve and download nothing"
    assert f"COPY {pinned_set.group(1)} " in dockerfile
    image = pinned_file(pinned_set.group(1))
    assert image["apache-airflow"] == AIRFLOW_VERSION
    assert {"celery", "psycopg2-binary", "moto", "setuptools"} <= image.keys()
    tested = pinned_file("requirements/constraints-py3.11.txt")
    assert {name: v for name, v in image.items() if tested.get(name) != v} == {}
    # The base image's Python is the one the set was compiled for and pyproject.toml allows.
    base = re.search(r"^FROM python:(\d+\.\d+)-slim(@sha256:[0-9a-f]{64})?$", dockerfile, re.MULTILINE)
    assert base is not None
    assert pinned_set.group(1).endswith(f"-py{base.group(1)}.txt")
    requires = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    assert f">={base.group(1)}" in requires


def pinned_file(path: str) -> dict[str, str]:
    lines = (REPO / path).read_text(encoding="utf-8").splitlines()
    pairs = (line.split("==", 1) for line in lines if "==" in line and not line.startswith(("#", " ")))
    return {name.lower(): rest.split()[0] for name, rest in pairs}


def test_every_airflow_container_and_the_simulator_run_one_image_built_from_the_dockerfile() -> None:
    builders = [*AIRFLOW_SERVICES, "simulator"]
    for name in builders:
        assert service(name).get("image"), f"{name} has no image tag"
    images = {resolve(service(name)["image"]) for name in builders}
    builds = {json.dumps(service(name).get("build"), sort_keys=True) for name in builders}
    assert len(images) == 1, images
    assert len(builds) == 1, builds
    build = service("simulator")["build"]
    assert (REPO / build["context"] / build.get("dockerfile", "Dockerfile")).resolve() == DOCKERFILE


def test_celery_executor_with_a_redis_broker_and_a_postgres_database() -> None:
    postgres = environment("postgres")
    assert service("postgres")["image"] == "postgres:16"
    assert service("redis")["image"] == "redis:7"
    for name in AIRFLOW_SERVICES:
        env = environment(name)
        assert env["AIRFLOW__CORE__EXECUTOR"] == "CeleryExecutor", name
        assert env["AIRFLOW__CELERY__BROKER_URL"].startswith("redis://redis:6379/"), name
        for key in ("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "AIRFLOW__CELERY__RESULT_BACKEND"):
            url = urlsplit(env[key])
            assert url.scheme in {"postgresql+psycopg2", "db+postgresql"}, (name, key)
            assert (url.hostname, url.port or 5432) == ("postgres", 5432), (name, key)
            assert (url.username, url.password, url.path.lstrip("/")) == (
                postgres["POSTGRES_USER"],
                postgres["POSTGRES_PASSWORD"],
                postgres["POSTGRES_DB"],
            ), (name, key)


def test_airflow_components_share_one_configuration() -> None:
    environments = {name: environment(name) for name in AIRFLOW_SERVICES}
    # only airflow-init has the admin password, which it writes to the passwords file
    assert environments["airflow-init"].pop("AIRFLOW_ADMIN_PASSWORD") == "<AIRFLOW_ADMIN_PASSWORD>"
    reference = environments["airflow-apiserver"]
    for name, env in environments.items():
        assert env == reference, f"{name} differs from airflow-apiserver"
    assert reference["AIRFLOW__API_AUTH__JWT_SECRET"] == "<AIRFLOW_JWT_SECRET>"  # from .env: 64 hex digits
    assert reference["AIRFLOW__API__SECRET_KEY"] == "<AIRFLOW_API_SECRET_KEY>"
    assert reference["AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE"] == "true"
    # Workers reach the Task Execution API on the api-server's service name and container port.
    api = urlsplit(reference["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"])
    assert (api.scheme, api.hostname, api.path) == ("http", "airflow-apiserver", "/execution/")
    assert api.port == int(reference.get("AIRFLOW__API__PORT", "8080"))
    assert api.port in published_ports("airflow-apiserver").values()


def test_the_stack_ships_the_fail_over_settings_the_end_to_end_faults_proved() -> None:
    """The e2e kills the scheduler, triggerers and a Celery worker on a stack with these settings; a deployment
    with other values would recover on a schedule nobody tested."""
    from sagemaker_fleet.testing.component_env import FAILOVER_SETTINGS

    assert len(FAILOVER_SETTINGS) == 9
    shipped = environment("airflow-scheduler")
    assert {key: shipped.get(key) for key in FAILOVER_SETTINGS} == dict(FAILOVER_SETTINGS)


def test_the_local_stack_runs_with_the_fail_over_settings(tmp_path: Path) -> None:
    from sagemaker_fleet.testing.component_env import FAILOVER_SETTINGS
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    stack = LocalAirflowStack(
        StackSettings(home=tmp_path, dags_folder=tmp_path, endpoint_url="http://127.0.0.1:1")
    )
    env = stack.env()
    assert {key: env[key] for key in FAILOVER_SETTINGS} == dict(FAILOVER_SETTINGS)


def test_every_airflow_setting_is_an_option_of_the_installed_airflow() -> None:
    known = known_airflow_options()
    for name in AIRFLOW_SERVICES:
        for key in environment(name):
            if not key.startswith("AIRFLOW__"):
                continue
            section, _, option = key.removeprefix("AIRFLOW__").lower().partition("__")
            assert (section, option) in known, f"{name}: {key} is not an Airflow {AIRFLOW_VERSION} option"


def test_the_aws_default_connection_points_at_the_simulator() -> None:
    args = command("simulator")
    assert args[:3] == ["sagemaker-fleet", "sim", "serve"]
    assert option_after(args, "--host") == "0.0.0.0"
    port = int(option_after(args, "--port"))
    assert float(option_after(args, "--speed")) > 0
    assert port in published_ports("simulator").values()
    fleet = load_fleet_spec(demo_fleet_path())
    for name in AIRFLOW_SERVICES:
        connection = json.loads(environment(name)["AIRFLOW_CONN_AWS_DEFAULT"])
        assert connection["conn_type"] == "aws", name
        assert connection["login"], name
        assert connection["password"], name
        assert connection["extra"]["endpoint_url"] == f"http://simulator:{port}", name
        assert connection["extra"]["region_name"] == fleet.region == "us-east-1", name


def test_dags_are_mounted_where_airflow_and_the_simulator_read_them() -> None:
    for name in [*AIRFLOW_SERVICES, "simulator"]:
        source = mounts(name).get(CONTAINER_DAGS)
        assert source is not None, f"{name} does not mount dags/ at {CONTAINER_DAGS}"
        assert (REPO / source).resolve() == REPO / "dags", name
    for name in AIRFLOW_SERVICES:
        env = environment(name)
        dags_folder = env.get("AIRFLOW__CORE__DAGS_FOLDER", f"{env['AIRFLOW_HOME']}/dags")
        assert dags_folder == CONTAINER_DAGS, name
    assert demo_fleet_path() == REPO / "dags" / "fleets" / "demo.yaml"


def test_long_running_services_have_healthchecks() -> None:
    for name in SERVICES - ONE_SHOT:
        check = service(name).get("healthcheck") or {}
        assert not check.get("disable"), name
        assert check.get("test"), name
        assert check["test"][0] in {"CMD", "CMD-SHELL"}, name
    for name in ONE_SHOT:
        assert service(name).get("restart") == "no", f"{name} must run once"
    scheduler_check = " ".join(service("airflow-scheduler")["healthcheck"]["test"])
    assert ":8974/health" in scheduler_check
    assert environment("airflow-scheduler")["AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK"] == "true"


def test_dependencies_wait_for_health_or_completion() -> None:
    graph = {name: set(depends_on(name)) for name in SERVICES}
    for name in SERVICES:
        for dependency, condition in depends_on(name).items():
            assert dependency in SERVICES, (name, dependency)
            if dependency in ONE_SHOT:
                assert condition == "service_completed_successfully", (name, dependency)
            else:
                assert condition == "service_healthy", (name, dependency)
                assert service(dependency).get("healthcheck"), (name, dependency)
    for name in set(AIRFLOW_SERVICES) - ONE_SHOT:
        assert {"postgres", "redis", "airflow-init"} <= graph[name], name
    assert {"postgres", "simulator"} <= graph["airflow-init"]
    assert "airflow-apiserver" in graph["airflow-worker"]
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:  # pragma: no cover - the message is the diagnosis
        pytest.fail(f"depends_on has a cycle: {exc.args[1]}")


def test_init_sets_no_airflow_pool() -> None:
    """Training tasks start in the triggerer, where Airflow pools do not apply; the dispatch keeps the quotas."""
    assert not list(_POOL_SET.finditer(init_script()))
    assert "airflow pools" not in init_script()


def test_init_migrates_the_database_before_anything_else() -> None:
    steps = [
        line.strip()
        for line in init_script().splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert steps[0] == "airflow db migrate"
    assert service("airflow-init").get("entrypoint", [])[:2] == ["/bin/bash", "-euo"], (
        "fail on the first error"
    )


def login() -> tuple[str, str]:
    """The UI login: the user configured for the simple auth manager and the password airflow-init writes (the
    required ``AIRFLOW_ADMIN_PASSWORD`` of .env, so ``<AIRFLOW_ADMIN_PASSWORD>`` here)."""
    env = environment("airflow-apiserver")
    users = [entry.split(":")[0] for entry in env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS"].split(",")]
    written = re.search(
        r"json\.dump\(\{\"(\w+)\": os\.environ\[\"(\w+)\"\]\}, sys\.stdout\)' > \"\$passwords\"",
        init_script(),
    )
    assert written is not None, "airflow-init must write the simple auth manager's passwords file"
    assert [written.group(1)] == users
    password = environment("airflow-init")[written.group(2)]
    file_path = env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"]
    assert f"passwords={file_path}" in init_script()
    folder = str(Path(file_path).parent)
    assert mounts("airflow-init")[folder] == mounts("airflow-apiserver")[folder], (
        "init and api-server share it"
    )
    return users[0], password


def required_variables() -> set[str]:
    """Every ``${NAME:?…}`` of the compose file."""
    return {
        m.group("name")
        for m in _VARIABLE.finditer(COMPOSE_FILE.read_text(encoding="utf-8"))
        if m.group("required") is not None
    }


SECRET_SETTINGS = ("AIRFLOW__CORE__FERNET_KEY", "AIRFLOW__API_AUTH__JWT_SECRET", "AIRFLOW__API__SECRET_KEY")


def test_no_secret_has_a_usable_default() -> None:
    """The Fernet key, the JWT and API secrets and every password come from .env: compose refuses to start
    without them rather than run with a value anyone can read in this repository."""
    for name in AIRFLOW_SERVICES:
        env = environment(name)
        for key in SECRET_SETTINGS:
            assert re.fullmatch(r"<[A-Z_]+>", env[key]), (
                f"{name}: {key} = {env[key]!r} is not a required variable"
            )
        for key in ("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "AIRFLOW__CELERY__RESULT_BACKEND"):
            password = urlsplit(env[key].removeprefix("db+")).password
            assert password == "<POSTGRES_PASSWORD>", f"{name}: {key} has password {password!r}"
    assert environment("postgres")["POSTGRES_PASSWORD"] == "<POSTGRES_PASSWORD>"
    assert login()[1] == "<AIRFLOW_ADMIN_PASSWORD>"
    assert required_variables() >= {
        "AIRFLOW_FERNET_KEY",
        "AIRFLOW_JWT_SECRET",
        "AIRFLOW_API_SECRET_KEY",
        "POSTGRES_PASSWORD",
        "AIRFLOW_ADMIN_PASSWORD",
    }


def test_every_published_port_is_on_loopback_only() -> None:
    for name in SERVICES:
        for entry in service(name).get("ports") or []:
            host_ip = entry.get("host_ip") if isinstance(entry, Mapping) else resolve(entry).rsplit(":", 2)[0]
            assert host_ip == "127.0.0.1", f"{name} publishes {entry!r} beyond this machine"


def test_scripts_docker_env_writes_every_required_variable_with_fresh_values() -> None:
    import base64
    import subprocess
    import sys

    def run() -> dict[str, str]:
        out = subprocess.run(
            [sys.executable, str(REPO / "scripts" / "docker-env"), "--print"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return dict(line.split("=", 1) for line in out.splitlines())

    first, second = run(), run()
    assert set(first) == required_variables()
    assert all(first[key] != second[key] for key in first), "each run makes new secrets"
    assert len(base64.urlsafe_b64decode(first["AIRFLOW_FERNET_KEY"])) == 32  # a valid Fernet key
    assert ".env" in (REPO / ".gitignore").read_text(encoding="utf-8").split()


# ------------------------------------------------------------------------------------- agreement with the docs


def doc_line(label: str) -> str:
    for line in DOCKER_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {label} |"):
            return line
    pytest.fail(f"docs/guides/docker.md has no table row starting with '| {label} |'")


def test_docs_state_the_ui_url_and_login_the_stack_serves() -> None:
    row = doc_line("Airflow UI")
    match = re.search(r"http://localhost:(\d+)\S* — login `([^`]+)` / `([^`]+)`", row)
    assert match is not None, row
    assert int(match.group(1)) in published_ports("airflow-apiserver")
    assert published_ports("airflow-apiserver")[int(match.group(1))] == 8080
    assert (match.group(2), match.group(3)) == login()


def test_docs_state_the_simulator_endpoint_and_speed_the_stack_uses() -> None:
    row = doc_line("Simulated AWS endpoint")
    host = re.search(r"http://localhost:(\d+)", row)
    inside = re.search(r"http://simulator:(\d+)", row)
    assert host is not None, row
    assert inside is not None, row
    assert int(host.group(1)) in published_ports("simulator")
    assert int(inside.group(1)) == int(option_after(command("simulator"), "--port"))
    speed = re.search(r"`SIM_SPEED`, default (\d+(?:\.\d+)?)", doc_line("Simulator speed"))
    assert speed is not None
    assert float(speed.group(1)) == float(option_after(command("simulator"), "--speed"))


def test_every_localhost_port_in_the_docs_is_published() -> None:
    published = {port for name in SERVICES for port in published_ports(name)}
    stated = {int(port) for port in re.findall(r"localhost:(\d+)", DOCKER_DOC.read_text(encoding="utf-8"))}
    assert stated, "docs/guides/docker.md names no localhost URL"
    assert stated <= published, f"docs/guides/docker.md names unpublished ports {sorted(stated - published)}"


def test_docs_say_the_stack_was_not_run_here_and_the_index_links_them() -> None:
    text = DOCKER_DOC.read_text(encoding="utf-8")
    assert "no Docker engine" in text
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    assert "(guides/docker.md)" in index
    limitations = index.split("## Limitations", 1)[1]
    assert "docker-compose stack has never been started" in limitations


def test_the_image_copies_every_file_the_package_build_reads() -> None:
    """``pip install .`` in the image builds the package: its readme and license files must be in the image (the
    readme moved to docs/, which the build context ignores but for that file)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    readme = project["readme"] if isinstance(project["readme"], str) else project["readme"]["file"]
    needed = [readme, *project.get("license-files", [])]
    dockerfile = DOCKERFILE.read_text(encoding="utf-8")
    copied = [
        word for line in re.findall(r"^COPY (.+)$", dockerfile, re.MULTILINE) for word in line.split()[:-1]
    ]
    ignore = (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
    for path in needed:
        assert path in copied, f"the Dockerfile does not COPY {path}"
        top = path.split("/")[0]
        if top in ignore and path != top:
            assert f"!{path}" in ignore, f".dockerignore leaves {path} out of the build context"
        assert path not in ignore, f".dockerignore leaves {path} out of the build context"
