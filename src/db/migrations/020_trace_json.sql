-- A trace is written once and read back whole: no query looks inside its columns, and nothing indexes them. As json
-- (the text, checked) rather than jsonb (parsed into a tree and stored as binary) a trace costs the database about
-- half as much to store: on the embedded database, 500 evaluation traces a COPY took 35 µs a row through
-- jsonb_to_recordset into jsonb and 18-26 µs through COPY into json. Reads parse either type the same way.
ALTER TABLE traces
  ALTER COLUMN refs TYPE json USING refs::json,
  ALTER COLUMN inputs TYPE json USING inputs::json,
  ALTER COLUMN outputs TYPE json USING outputs::json,
  ALTER COLUMN status TYPE json USING status::json,
  ALTER COLUMN usage TYPE json USING usage::json,
  ALTER COLUMN spans TYPE json USING spans::json;
