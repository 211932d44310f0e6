-- A result's key to its scenario made PostgreSQL look up (and lock) the scenario of every result inserted: three
-- times a testcase in a server-run evaluation, whose results are written for the scenarios its own transactions
-- planned and locked. A client's results are checked against their scenarios, which stay locked until the results
-- are stored (evaluations/scenarios.ts), as the key's check locked them. A scenario's deletion still takes its
-- results with it, by this trigger, once a statement.
ALTER TABLE evaluation_results DROP CONSTRAINT evaluation_results_scenario_id_fkey;

CREATE FUNCTION delete_scenario_results() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM evaluation_results r USING gone g WHERE r.scenario_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER evaluation_scenarios_results AFTER DELETE ON evaluation_scenarios
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION delete_scenario_results();
