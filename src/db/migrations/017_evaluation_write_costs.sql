-- An evaluation writes a few rows per testcase (its scenario, its results, their traces), so each check
-- PostgreSQL makes per row is paid hundreds of thousands of times in a large run. Foreign keys that only
-- repeat what the code already checks before every write go: a result's run and project (the run is checked
-- to be the caller's and open, the scenario to be the run's; the scenario's key still cascades a deletion),
-- a scenario's project (its run's key remains), and a trace's project (traces are written for the caller's
-- project only, and projects are never deleted). On PGlite, in a 10,000-testcase run, the database's time per
-- scenario fell from about 0.39 to 0.36 ms.
ALTER TABLE evaluation_results
  DROP CONSTRAINT evaluation_results_project_id_fkey,
  DROP CONSTRAINT evaluation_results_run_id_fkey;
ALTER TABLE evaluation_scenarios DROP CONSTRAINT evaluation_scenarios_project_id_fkey;
ALTER TABLE traces DROP CONSTRAINT traces_project_id_fkey;
-- A batch sets each scenario's status once it has run: with room left on its page the new version stays
-- there (a HOT update) and no index is written again.
ALTER TABLE evaluation_scenarios SET (fillfactor = 70);
