# One image for every container of docker-compose.yaml: the Airflow components (api-server, scheduler,
# dag-processor, triggerer, Celery worker, init) and the simulated SageMaker endpoint (`sagemaker-fleet sim serve`).
#
# Base image: python:3.11-slim, not apache/airflow:3.3.2-python3.11. The provider is tested against one pinned set,
# requirements/constraints-py3.11.txt, which we generate ourselves (Airflow's upstream constraints file cannot be
# downloaded where this project is built), so its versions of boto3/botocore, the Amazon and Celery providers and
# friends differ from the ones baked into the official image. `pip install -c ... .` on top of the official image
# would up- and downgrade those packages in place and give an image that matches neither upstream's tested set nor
# ours. On a bare Python 3.11 the image holds exactly the set `make test` runs against. The price is small: we
# create the `airflow` user and AIRFLOW_HOME here, and there is no upstream entrypoint, so every service in
# docker-compose.yaml names its full command.
#
# Not built here: no Docker engine was available when this file was written (see docs/guides/docker.md).
#
# Not pinned by digest yet: neither a Docker engine nor Docker Hub could be reached where this file was last changed,
# so the digest of python:3.11-slim could not be read, and a digest that was not read is worse than none. Pin it
# where you build (docs/security.md, supply chain): `docker buildx imagetools inspect python:3.11-slim` prints the
# index digest; write `FROM python:3.11-slim@sha256:<that digest>` and move it on purpose when Debian or Python
# publish fixes.
FROM python:3.11-slim

ARG AIRFLOW_VERSION=3.3.2
ARG AIRFLOW_UID=50000

ENV AIRFLOW_HOME=/opt/airflow \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Group 0 owns the writable folders, as in the official image, so an arbitrary --user UID in group 0 still works.
RUN useradd --uid "${AIRFLOW_UID}" --gid 0 --home-dir /home/airflow --create-home --shell /bin/bash airflow \
 && mkdir -p /opt/airflow/dags /opt/airflow/logs /opt/airflow/auth \
 && chown -R "${AIRFLOW_UID}:0" /opt/airflow \
 && chmod -R g+rwX /opt/airflow

WORKDIR /opt/sagemaker-fleet
COPY requirements/image-py3.11.txt requirements/image-py3.11.txt

# Every third-party package first — Airflow with the CeleryExecutor and PostgreSQL extras, the simulator's moto
# server, the setuptools that builds the provider: the heavy layer, cached while only the provider's code changes.
# The set is compiled inside requirements/constraints-py3.11.txt (the versions `make test` runs), and each file must
# match one of its hashes (--require-hashes) or the build stops.
RUN pip install --require-hashes --no-deps -r requirements/image-py3.11.txt

# Then the provider alone: no dependency resolved, built by the set's setuptools (nothing downloaded unchecked).
COPY pyproject.toml README.md LICENSE ./
COPY docs/pypi-description.md docs/pypi-description.md
COPY provider/ provider/
RUN pip install --no-deps --no-build-isolation ".[sim]" \
 && pip check \
 && python -c "import airflow, sys; sys.exit(0 if airflow.__version__ == '${AIRFLOW_VERSION}' else 'expected Airflow ${AIRFLOW_VERSION}, found ' + airflow.__version__)" \
 && sagemaker-fleet --help > /dev/null

USER airflow
WORKDIR /opt/airflow

# 8080 api-server · 8793 worker log server · 8794 triggerer log server · 8974 scheduler health · 4566 simulator
EXPOSE 8080 8793 8794 8974 4566
