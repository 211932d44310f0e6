-- Versions count from 0, as the reference's: a revision's version is the number of revisions before it
-- on its variant. Existing rows were numbered from 1. Two passes, so that the unique (variant_id,
-- version) never sees two rows with one number: first out of the way (negative), then into place.
UPDATE revisions SET version = -version - 1;
UPDATE revisions r SET version = n.position
FROM (SELECT id, row_number() OVER (PARTITION BY variant_id ORDER BY version DESC) - 1 AS position FROM revisions) n
WHERE n.id = r.id;

-- Environments store the version of what they deploy next to its id: renumber those copies too.
UPDATE revisions e SET data = jsonb_set(e.data, '{references}', (
  SELECT coalesce(jsonb_object_agg(k, CASE WHEN jsonb_typeof(v) = 'object' THEN coalesce((
    SELECT jsonb_object_agg(ek, CASE WHEN ek LIKE '%\_revision' AND jsonb_typeof(ev) = 'object' AND ev ? 'version'
      THEN jsonb_set(ev, '{version}', coalesce((
        SELECT to_jsonb(t.version::text) FROM revisions t
        WHERE t.id = CASE WHEN ev->>'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (ev->>'id')::uuid END
      ), ev->'version'))
      ELSE ev END)
    FROM jsonb_each(v) AS entry(ek, ev)), '{}'::jsonb) ELSE v END), '{}'::jsonb)
  FROM jsonb_each(e.data->'references') AS deployed(k, v)
))
WHERE e.kind = 'environment' AND jsonb_typeof(e.data->'references') = 'object';
