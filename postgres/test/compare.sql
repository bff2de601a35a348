-- SPDX-License-Identifier: MIT
-- Every function of the extension against the uriscan command's own output
-- on the shared corpora (prepare.py's files, in the current directory),
-- then a parallel plan. Ends with an error (psql exits non-zero) on any
-- mismatch.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS uriscan;

CREATE TEMP TABLE lines (line bigint PRIMARY KEY, u text);
\copy lines FROM 'lines.tsv' (FORMAT text)
-- The load path: parse --format=tsv as the command writes it, header and all.
CREATE TEMP TABLE parsed (line bigint PRIMARY KEY, valid boolean,
  scheme text, userinfo text, host text, port text, path text, query text,
  fragment text, host_type text, error text);
\copy parsed FROM 'parse.tsv' (FORMAT text, HEADER true)
CREATE TEMP TABLE derived (line bigint PRIMARY KEY, registrable_domain text,
  public_suffix text, surt text);
\copy derived FROM 'derived.tsv' (FORMAT text, HEADER true)
CREATE TEMP TABLE keys (profile text, line bigint, normalized text, key text,
  PRIMARY KEY (profile, line));
CREATE TEMP TABLE keys_one (line bigint, normalized text, key text);
\copy keys_one FROM 'keys_syntax.tsv' (FORMAT text, HEADER true)
INSERT INTO keys SELECT 'syntax', * FROM keys_one; TRUNCATE keys_one;
\copy keys_one FROM 'keys_scheme.tsv' (FORMAT text, HEADER true)
INSERT INTO keys SELECT 'scheme', * FROM keys_one; TRUNCATE keys_one;
\copy keys_one FROM 'keys_crawler.tsv' (FORMAT text, HEADER true)
INSERT INTO keys SELECT 'crawler', * FROM keys_one; TRUNCATE keys_one;
\copy keys_one FROM 'keys_w3lib.tsv' (FORMAT text, HEADER true)
INSERT INTO keys SELECT 'w3lib', * FROM keys_one;
CREATE TEMP TABLE audit (line bigint PRIMARY KEY, flags text);
\copy audit FROM 'audit.tsv' (FORMAT text)
CREATE TEMP TABLE at (line bigint PRIMARY KEY, at integer);
\copy at FROM 'at.tsv' (FORMAT text)
CREATE TEMP TABLE resolved (line bigint PRIMARY KEY, target text);
\copy resolved FROM 'resolve.tsv' (FORMAT text)
CREATE TEMP TABLE relative (line bigint PRIMARY KEY, ref text, target text);
\copy relative FROM 'relative.tsv' (FORMAT text)
CREATE TEMP TABLE columns (line bigint PRIMARY KEY, authority text,
  host_nowww text, subdomain text, extension text, path_decoded text,
  query_decoded text, fragment_decoded text, path_segments text,
  param_names text, surt_crawler text, param_raw_q text);
\copy columns FROM 'columns.tsv' (FORMAT text, HEADER true)
ANALYZE lines;

-- One row per (function, line): what the command says and what SQL says.
CREATE TEMP TABLE checks AS
SELECT f.fn, l.line, f.want, f.got
FROM lines l JOIN parsed p USING (line) JOIN derived d USING (line)
  JOIN audit a USING (line) JOIN resolved r USING (line)
  LEFT JOIN at USING (line),
  LATERAL uri_parse(l.u) x,
  LATERAL (VALUES
    ('uri_valid', p.valid::text, uri_valid(l.u)::text),
    ('uri_error', p.error, uri_error(l.u)),
    ('uri_scheme', p.scheme, uri_scheme(l.u)),
    ('uri_userinfo', p.userinfo, uri_userinfo(l.u)),
    ('uri_host', p.host, uri_host(l.u)),
    ('uri_port', p.port, uri_port(l.u)),
    ('uri_path', p.path, uri_path(l.u)),
    ('uri_query', p.query, uri_query(l.u)),
    ('uri_fragment', p.fragment, uri_fragment(l.u)),
    ('uri_host_type', p.host_type, uri_host_type(l.u)),
    ('uri_parse', row(p.valid, p.scheme, p.userinfo, p.host, p.port, p.path,
                      p.query, p.fragment, p.host_type, p.error,
                      at.at)::uriscan_parts::text, x::text),
    ('uri_registrable_domain', d.registrable_domain,
     uri_registrable_domain(l.u)),
    ('uri_public_suffix', d.public_suffix, uri_public_suffix(l.u)),
    ('uri_surt', d.surt, uri_surt(l.u)),
    ('uri_risks', a.flags,
     coalesce(array_to_string(uri_risks(l.u), ','), 'invalid')),
    ('uri_resolve', r.target, uri_resolve('http://a/b/c/d;p?q', l.u))
  ) AS f(fn, want, got)
UNION ALL
SELECT 'uri_normalize ' || k.profile, l.line, k.normalized,
       uri_normalize(l.u, k.profile)
FROM lines l JOIN keys k USING (line)
UNION ALL
SELECT 'uri_key ' || k.profile, l.line, k.key,
       lpad(to_hex(uri_key(l.u, k.profile)), 16, '0')
FROM lines l JOIN keys k USING (line);

-- The derived columns; a list as the command's JSON array (compared as
-- jsonb, so that escapes spelled two ways agree).
INSERT INTO checks
SELECT f.fn, l.line, f.want, f.got
FROM lines l JOIN columns c USING (line) LEFT JOIN at USING (line),
  LATERAL (VALUES
    ('uri_error_at', at.at::text, uri_error_at(l.u)::text),
    ('uri_authority', c.authority, uri_authority(l.u)),
    ('uri_host_nowww', c.host_nowww, uri_host_nowww(l.u)),
    ('uri_subdomain', c.subdomain, uri_subdomain(l.u)),
    ('uri_extension', c.extension, uri_extension(l.u)),
    ('uri_path_decoded', c.path_decoded, uri_path_decoded(l.u)),
    ('uri_query_decoded', c.query_decoded, uri_query_decoded(l.u)),
    ('uri_fragment_decoded', c.fragment_decoded, uri_fragment_decoded(l.u)),
    ('uri_path_segments', c.path_segments::jsonb::text,
     to_jsonb(uri_path_segments(l.u))::text),
    ('uri_param_names', c.param_names::jsonb::text,
     to_jsonb(uri_param_names(l.u))::text),
    ('uri_surt_crawler', c.surt_crawler, uri_surt_crawler(l.u)),
    ('uri_param_raw', c.param_raw_q, uri_param_raw(l.u, 'q'))
  ) AS f(fn, want, got);

INSERT INTO checks
SELECT 'uri_resolve relative', line, target,
       uri_resolve('http://a/b/c/d;p?q', ref)
FROM relative;

-- uri_params and uri_param against the command's `params`, on the lines
-- whose parameters are text in this database (prepare.py).
CREATE TEMP TABLE params_want (line bigint, k bigint, name text, value text);
\copy params_want FROM 'params.tsv' (FORMAT text)
CREATE TEMP TABLE params_lines (line bigint PRIMARY KEY);
\copy params_lines FROM 'params_lines.tsv' (FORMAT text)
INSERT INTO checks
SELECT 'uri_params', coalesce(w.line, g.line),
       w.name || '=' || w.value, g.name || '=' || g.value
FROM params_want w
FULL JOIN (SELECT l.line, p.k, p.name, p.value
           FROM lines l JOIN params_lines USING (line),
                LATERAL uri_params(l.u) WITH ORDINALITY AS p(name, value, k)) g
  ON w.line = g.line AND w.k = g.k;
INSERT INTO checks
SELECT 'uri_param', w.line, w.value, uri_param(l.u, w.name)
FROM params_want w JOIN lines l USING (line)
WHERE w.k = (SELECT min(k) FROM params_want v
             WHERE v.line = w.line AND v.name = w.name);

-- uri_normalize and uri_key with the default profile are scheme's.
INSERT INTO checks
SELECT 'default profile', l.line, k.key || ' ' || k.normalized,
       lpad(to_hex(uri_key(l.u)), 16, '0') || ' ' || uri_normalize(l.u)
FROM lines l JOIN keys k USING (line) WHERE k.profile = 'scheme';

-- The parallel plan: PARALLEL SAFE lets workers call the functions, and
-- they answer as the leader does.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE parallel_plan (plan text);
CREATE TABLE lines_shared AS SELECT * FROM lines;  -- workers see no temp table
ANALYZE lines_shared;
DO $$
DECLARE
  plan text := '';
  r record;
  parallel_sum numeric;
  serial_sum numeric;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
      SELECT count(uri_host(u)), sum(uri_key(u, ''crawler'')),
             count((uri_parse(u)).path), count(uri_registrable_domain(u))
      FROM lines_shared' LOOP
    plan := plan || r."QUERY PLAN" || E'\n';
  END LOOP;
  INSERT INTO parallel_plan VALUES (plan);
  SELECT sum(uri_key(u, 'crawler')) + count(uri_host(u))
         + count(uri_registrable_domain(u))
    INTO parallel_sum FROM lines_shared;
  SET LOCAL max_parallel_workers_per_gather = 0;
  SELECT sum(uri_key(u, 'crawler')) + count(uri_host(u))
         + count(uri_registrable_domain(u))
    INTO serial_sum FROM lines_shared;
  INSERT INTO checks VALUES ('parallel plan', 0,
    'Parallel Seq Scan, workers launched, same sums',
    CASE WHEN plan !~ 'Parallel Seq Scan' THEN 'no parallel scan'
         WHEN plan !~ 'Workers Launched: [1-9]' THEN 'no worker launched'
         WHEN parallel_sum IS DISTINCT FROM serial_sum THEN 'sums differ'
         ELSE 'Parallel Seq Scan, workers launched, same sums' END);
END $$;
DROP TABLE lines_shared;
RESET ALL;

\pset footer off
SELECT current_setting('server_encoding') AS encoding, fn AS function,
       count(*) AS rows,
       count(*) FILTER (WHERE want IS DISTINCT FROM got) AS mismatches
FROM checks GROUP BY fn ORDER BY fn;
SELECT fn, line, want, got FROM checks
WHERE want IS DISTINCT FROM got ORDER BY fn, line LIMIT 10;
DO $$
BEGIN
  IF EXISTS (SELECT FROM checks WHERE want IS DISTINCT FROM got) THEN
    RAISE EXCEPTION 'the extension and the command disagree (above)';
  END IF;
END $$;
