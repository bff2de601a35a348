-- SPDX-License-Identifier: MIT
-- The SQL face of the extension uriscan (docs/library.md, "PostgreSQL").
-- Every function is STRICT (NULL in, NULL out) and never raises on an
-- invalid reference: its components are NULL. IMMUTABLE holds for a given
-- build of uriscan: keys and normal forms change only with the profile
-- version, registrable domains with the built-in Public Suffix List.
\echo Use "CREATE EXTENSION uriscan" to load this file. \quit

CREATE TYPE uriscan_parts AS (
  valid boolean,
  scheme text,
  userinfo text,
  host text,
  port text,
  path text,
  query text,
  fragment text,
  host_type text,
  error text,
  error_at integer
);

CREATE FUNCTION uri_parse(uri text) RETURNS uriscan_parts
  AS 'MODULE_PATHNAME', 'uri_parse'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_parse(text) IS
  'every component of one scan, as the columns of uriscan parse --format=tsv';

CREATE FUNCTION uri_valid(uri text) RETURNS boolean
  AS 'MODULE_PATHNAME', 'uri_valid'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_error(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_error'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_scheme(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_scheme'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_userinfo(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_userinfo'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_host(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_host'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_port(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_port'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_path(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_path'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_query(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_query'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_fragment(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_fragment'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_host_type(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_host_type'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uri_normalize(uri text, profile text DEFAULT 'scheme')
  RETURNS text
  AS 'MODULE_PATHNAME', 'uri_normalize'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_normalize(text, text) IS
  'the normal form of uriscan normalize --profile=PROFILE (syntax, scheme, crawler, w3lib)';
CREATE FUNCTION uri_key(uri text, profile text DEFAULT 'scheme')
  RETURNS bigint
  AS 'MODULE_PATHNAME', 'uri_key'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_key(text, text) IS
  'the 64-bit key of uriscan dedup --keys, as a signed integer';
CREATE FUNCTION uri_resolve(base text, ref text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_resolve'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uri_registrable_domain(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_registrable_domain'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_public_suffix(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_public_suffix'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_surt(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_surt'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_risks(uri text) RETURNS text[]
  AS 'MODULE_PATHNAME', 'uri_risks'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION uri_param(uri text, name text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_param'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_param(text, text) IS
  'the first query parameter named NAME, form-decoded; NULL when absent';
CREATE FUNCTION uri_params(uri text) RETURNS TABLE(name text, value text)
  AS 'MODULE_PATHNAME', 'uri_params'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 4;

-- The other columns of uriscan parse --columns that a reference alone
-- gives, each the column's answer (NULL where it writes \N).
CREATE FUNCTION uri_error_at(uri text) RETURNS bigint
  AS 'MODULE_PATHNAME', 'uri_error_at'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_error_at(text) IS
  'the byte offset of the first bad byte (the column at); NULL when valid';
CREATE FUNCTION uri_authority(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_authority'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_host_nowww(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_host_nowww'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_subdomain(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_subdomain'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_extension(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_extension'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_path_decoded(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_path_decoded'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_query_decoded(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_query_decoded'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_fragment_decoded(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_fragment_decoded'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_surt_crawler(uri text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_surt_crawler'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_path_segments(uri text) RETURNS text[]
  AS 'MODULE_PATHNAME', 'uri_path_segments'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_param_names(uri text) RETURNS text[]
  AS 'MODULE_PATHNAME', 'uri_param_names'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uri_param_raw(uri text, name text) RETURNS text
  AS 'MODULE_PATHNAME', 'uri_param_raw'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uri_param_raw(text, text) IS
  'the first query parameter named NAME, as written; NULL when absent';
