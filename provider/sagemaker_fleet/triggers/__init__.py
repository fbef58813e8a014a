"""The fleet's triggers, which run in Airflow's triggerer.

- ``city.py``: ``FleetCityTrigger``, one city of a run (the training task), over ``city_io.py`` (its I/O);
- ``session.py``: ``RunSession``, a run's session in the triggerer, shared by its triggers: its sweeps (the I/O in
  ``sweep_io.py``), waiting cities and watched jobs, opened explicitly by the run's first city trigger, and
  ``outage.py`` (when it gives up); ``connection.py`` (its way to AWS: ``client.py``, the client that sends requests
  again through an outage, ``board_client.py``, its S3 calls for the account's board, and the sweep interval),
  ``watch.py`` (waiting for a job's end) and ``budget.py`` (the waiting cities' log lines);
- ``fleet.py``: ``FleetJobTrigger``, waits for one job; ``conditions.py``: the sensors' triggers;
- ``base.py``: the AWS connection of every trigger; ``defaults.py``: what a worker needs to defer to the city
  trigger; ``offloop.py``: a blocking call off the triggerer's event loop;
- ``inline.py``: what a city trigger needs when ``airflow dags test`` runs it in line (SIGTERM, Airflow's gap
  between two tasks).
"""
