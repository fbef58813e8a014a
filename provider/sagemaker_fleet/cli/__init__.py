"""The ``sagemaker-fleet`` command line (docs/quickstart.md).

- ``main.py``: the entry point and its parser; each command's module is imported only when the command runs;
- ``validate.py``: check a spec, every error at once;
- ``plan.py``: print a spec's pool-aware plan (table or JSON);
- ``request.py``: print one city's CreateTrainingJob request;
- ``preflight.py``: check the account before the first run;
- ``report.py``: the cost report of one run;
- ``simulate.py``: one fleet's run on the simulator, planned or naive, or both compared;
- ``simulate_account.py``: several fleets' runs on one simulated account;
- ``simulate_text.py``: what ``simulate`` prints for people;
- ``sim.py``: ``sim serve``, the simulated AWS endpoint;
- ``import_jobs.py``: ``import``, a fleet spec drafted from training jobs you already run;
- ``prices.py``: ``prices refresh``, the price table written from the AWS Price List's offer files;
- ``pilot/``: ``pilot``, three stores in the user's own AWS account, beside the simulator's prediction;
- ``inputs.py``: what the commands share about their input (the spec, ``--history``, ``--run-key``, refusals);
- ``argtypes.py``: argument types that refuse what they cannot honour;
- ``extras.py``: a missing optional extra named in one line, exit 2;
- ``streams.py``: the libraries' log lines on stderr, the command's report on stdout.
"""
