-- Testcases, traces and testset column names now store what jsonb cannot hold (NUL, unpaired
-- surrogates) behind the escape character U+0001 (src/db/jsonb-text.ts), and a real U+0001 as
-- U+0001 "1". Values stored before may hold a real U+0001: they are rewritten that way, so that
-- reading them back gives what was stored. In jsonb's text form U+0001 is written \u0001; one
-- after an odd run of backslashes is the literal text "\u0001" and is left alone.
UPDATE testcases SET
  data = regexp_replace(data::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  flags = regexp_replace(flags::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  tags = regexp_replace(tags::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  meta = regexp_replace(meta::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb
WHERE strpos(data::text, '\u0001') > 0 OR strpos(flags::text, '\u0001') > 0
   OR strpos(tags::text, '\u0001') > 0 OR strpos(meta::text, '\u0001') > 0;

UPDATE traces SET
  refs = regexp_replace(refs::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  inputs = regexp_replace(inputs::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  outputs = regexp_replace(outputs::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  status = regexp_replace(status::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  usage = regexp_replace(usage::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb,
  spans = regexp_replace(spans::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb
WHERE strpos(concat(refs::text, inputs::text, outputs::text, status::text, usage::text, spans::text), '\u0001') > 0;

UPDATE revisions SET
  data = jsonb_set(data, '{columns}',
    regexp_replace((data->'columns')::text, '(?<!\\)((?:\\\\)*)\\u0001', '\1\\u00011', 'g')::jsonb)
WHERE kind = 'testset' AND strpos((data->'columns')::text, '\u0001') > 0;
