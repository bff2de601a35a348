-- SPDX-License-Identifier: MIT
-- NULL, empty, invalid and 1 MB inputs, profile names, parameters, the
-- functions' markings and a frontier table; ASCII only, so the expected
-- output (edge.out) is the same in every database encoding.
\pset null '<null>'
-- Markings: every function IMMUTABLE STRICT PARALLEL SAFE.
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uriscan'
WHERE p.provolatile <> 'i' OR NOT p.proisstrict OR p.proparallel <> 's';
SELECT count(*) AS functions FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uriscan';
-- NULL in, NULL out.
SELECT uri_valid(NULL), uri_error(NULL), uri_scheme(NULL), uri_host(NULL),
       uri_path(NULL), uri_parse(NULL), uri_normalize(NULL),
       uri_key(NULL, 'crawler'), uri_resolve(NULL, 'a'),
       uri_resolve('http://a/', NULL), uri_registrable_domain(NULL),
       uri_surt(NULL), uri_risks(NULL), uri_param(NULL, 'q'),
       uri_param('http://a/?q', NULL);
SELECT count(*) FROM uri_params(NULL);
-- The empty reference is valid: an empty path, nothing else.
SELECT * FROM uri_parse('');
SELECT uri_valid(''), uri_normalize(''), uri_key('') IS NOT NULL AS key,
       uri_resolve('http://a/b?q', ''), uri_risks(''), uri_surt(''),
       uri_registrable_domain('');
-- Invalid references: NULL components, the error named, never an error
-- (under w3lib, w3lib's form: it canonicalizes these too).
SELECT * FROM uri_parse('http://a b/');
SELECT * FROM uri_parse('%zz');
SELECT * FROM uri_parse('http://[::1/');
SELECT uri_valid(u), uri_error(u), uri_scheme(u), uri_host(u), uri_path(u),
       uri_host_type(u), uri_normalize(u, 'w3lib'), uri_key(u, 'crawler'),
       uri_resolve(u, 'g'), uri_resolve('http://a/', u),
       uri_registrable_domain(u), uri_public_suffix(u), uri_surt(u),
       uri_risks(u), uri_param(u, 'q')
FROM (VALUES ('http://a b/?q=1'), ('ht~tp://a/?q=1')) AS t(u);
SELECT count(*) FROM uri_params('http://a b/?q=1');
-- 1 MB: valid, and invalid at its last byte.
SELECT valid, length(path), error, error_at
FROM (VALUES ('http://h/' || repeat('a', 1048576)),
             ('http://h/' || repeat('a', 1048576) || ' ')) AS t(u),
     uri_parse(u);
SELECT length(uri_normalize('HTTP://H/' || repeat('%7e', 349525), 'crawler')),
       uri_key('http://h/' || repeat('a', 1048576)) IS NOT NULL AS key,
       length(uri_resolve('http://h/' || repeat('a', 1048576), '?q')),
       length(uri_surt('http://h/' || repeat('a', 1048576))),
       uri_risks('http://h/' || repeat('a', 1048576)),
       length(uri_param('http://h/?q=' || repeat('%41', 349525), 'q'));
-- Hosts: IP literals and public suffixes.
SELECT u, uri_host(u), uri_host_type(u), uri_registrable_domain(u),
       uri_public_suffix(u)
FROM (VALUES ('http://[::1]:8080/'), ('http://127.0.0.1/'),
             ('http://[v7.x]/'), ('https://WWW.Example.CO.UK./a'),
             ('http://co.uk/'), ('mailto:a@b.example'), ('//h')) AS t(u);
-- Keys are signed 64-bit: the bits of dedup --keys.
SELECT uri_key('http://a/') = uri_key('HTTP://A:80/', 'scheme') AS same,
       uri_key('http://a/', 'syntax') <> uri_key('http://a/', 'scheme')
         AS seeded;
-- An unknown profile is the caller's mistake, and says so.
SELECT uri_normalize('http://a/', 'no-such-profile');
SELECT uri_key('http://a/', '');
-- Parameters, form-encoded: split on '&', first '=', empty fields
-- skipped, ';' not a separator, '+' a space, then %HH.
SELECT * FROM uri_params('http://a/?a=1&&b&c=x+y%2Bz&=v&d=1=2;e=3&a=2&');
SELECT uri_param(u, 'a') AS a, uri_param(u, 'b') AS b, uri_param(u, 'x y') AS xy,
       uri_param(u, 'missing') AS missing
FROM (VALUES ('http://a/?a=1&b&x+y=%41&a=2#a=3'), ('http://a/?'),
             ('http://a/#a=1'), ('a=1')) AS t(u);
SELECT count(*) FROM uri_params('http://a/');
-- A crawler frontier: one row per crawler key.
CREATE TEMP TABLE frontier (url text NOT NULL);
CREATE UNIQUE INDEX frontier_key ON frontier (uri_key(url, 'crawler'));
INSERT INTO frontier VALUES ('http://Example.com/a?b=1&utm_source=x#top'),
  ('http://example.com:80/a?b=1'), ('http://example.com/a?b=2'),
  ('http://a b/'), ('http://a b/')
ON CONFLICT DO NOTHING;
SELECT url, uri_normalize(url, 'crawler') FROM frontier ORDER BY url;
-- Internationalized hosts: one IDNA mapping (IDNA 2003, the surt library's).
SELECT uri_registrable_domain(u), uri_public_suffix(u), uri_surt(u),
       uri_normalize(u, 'crawler'),
       uri_key(u, 'crawler') = uri_key('http://xn--bcher-kva.de/', 'crawler') AS bucher
FROM (VALUES ('http://www.fa%C3%9F.co.uk/x'), ('http://B%C3%9Ccher.de/'),
             ('http://%FF.de/')) AS t(u);
-- The other columns of parse --columns: NULL in, NULL out; NULL for an
-- invalid reference; the column's answer for a valid one; 1 MB inputs.
SELECT uri_error_at(NULL), uri_authority(NULL), uri_host_nowww(NULL),
       uri_subdomain(NULL), uri_extension(NULL), uri_path_decoded(NULL),
       uri_path_segments(NULL), uri_param_names(NULL), uri_surt_crawler(NULL),
       uri_param_raw(NULL, 'q'), uri_param_raw('http://a/?q', NULL);
SELECT uri_error_at(u), uri_authority(u), uri_host_nowww(u),
       uri_subdomain(u), uri_extension(u), uri_path_decoded(u),
       uri_query_decoded(u), uri_fragment_decoded(u), uri_path_segments(u),
       uri_param_names(u), uri_surt_crawler(u), uri_param_raw(u, 'q')
FROM (VALUES ('http://a b/?q=1'),
             ('http://u@WWW.News.Example.CO.UK:8080/a%20b/c.tar.GZ?q=x+y%21&r&=z#fr%41g'),
             (''), ('mailto:a@b.example')) AS t(u);
SELECT array_length(uri_path_segments('http://h/' || repeat('a/', 524288)), 1)
         AS segments,
       length(uri_path_decoded('http://h/' || repeat('%41', 349525)))
         AS decoded,
       array_length(uri_param_names('http://h/?' || repeat('a&', 524288)), 1)
         AS names;
