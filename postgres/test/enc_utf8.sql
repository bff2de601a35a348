-- SPDX-License-Identifier: MIT
-- Non-ASCII text in a UTF8 database: invalid references, never errors;
-- in decoded parameters "%00" and escapes of no UTF-8 character stay as
-- written, as in every decoded column.
\pset null '<null>'
SELECT current_setting('server_encoding');
SELECT valid, error, error_at, uri_host(u), uri_key(u), uri_risks(u),
       uri_registrable_domain(u), uri_surt(u)
FROM (VALUES (U&'http://b\00FCcher.example/'), (U&'http://h/?q=\00E9'),
             (U&'http://h/\+01F4A1')) AS t(u), uri_parse(u);
SELECT encode(uri_param(u, 'q')::bytea, 'hex') AS q,
       encode(uri_param(u, 'r')::bytea, 'hex') AS r,
       uri_param(u, 's') = U&'\00FC\20AC' AS s
FROM (VALUES ('http://h/?q=%FF%fe&r=a%00b&s=%C3%BC%E2%82%AC')) AS t(u);
SELECT encode(name::bytea, 'hex') AS name, encode(value::bytea, 'hex') AS value
FROM uri_params('http://h/?%E9=%C3%A9');
