"""The job model (pure: no boto3, no Airflow): SageMaker training jobs as the fleet submits, reads and prices them.

- ``request.py``: a city's CreateTrainingJob request, its ``job:`` template merged on top, with the job tags
  (``sagemaker-fleet:*``, named in ``fleetspec/names.py``);
- ``keys.py``: the warm-pool matching key, which jobs may share a pool; ``groups.py``: the group of a city (its key
  and spot, numbered in spec order), the one name the plan, the report, the Fleet view and the logs give it;
- ``record.py``: DescribeTrainingJob responses as typed values; ``describe.py``: their compact JSON summary;
- ``statuses.py``: the job, start-up and warm-pool statuses and the error codes the package acts on, and what a
  job's state means (``POOL_AVAILABLE``, ``settled``, ``holds_capacity``);
- ``reader.py``: ``TrainingJobReader``, the one way the cost report and the Fleet view list and describe jobs;
- ``attempts.py``: what to do next for a city given its earlier submissions; ``attachment.py``: what creating a
  job by its name found;
- ``starts.py``: cold or warm starts and what a pool saved; ``startup.py``: the start-up time model;
- ``pools.py``: an Available warm pool for a key; ``release.py``: which idle pools to end after a run;
- ``progress.py``: where a run stands, from ListTrainingJobs; ``paging.py``: paged listings that must end;
- ``service_quotas.py``: the training quotas' Service Quotas names, and an account's quotas per instance type;
- ``prices.py``: the cost report's price lookup; ``duration_text.py``: the one duration format;
- ``endpoint.py``: the clock speed a simulated endpoint announces in its responses;
- ``errors.py``: prices or job shapes the model cannot handle; the code of a refused AWS call (``error_code``).
"""
