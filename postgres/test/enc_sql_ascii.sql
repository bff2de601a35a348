-- SPDX-License-Identifier: MIT
-- Bytes that are not UTF-8, in a SQL_ASCII database: invalid references,
-- never errors; in decoded parameters "%00" and escapes of no UTF-8
-- character stay as written, as in every decoded column.
\pset null '<null>'
SELECT current_setting('server_encoding');
SELECT valid, error, error_at, uri_host(u), uri_key(u), uri_risks(u),
       uri_registrable_domain(u), uri_surt(u)
FROM (VALUES (E'http://h/\xff'), (E'http://b\xfccher.example/'),
             (E'http://h/?q=\xc3\xa9')) AS t(u), uri_parse(u);
SELECT encode(uri_param(u, 'q')::bytea, 'hex') AS q,
       encode(uri_param(u, 'r')::bytea, 'hex') AS r
FROM (VALUES ('http://h/?q=%FF%fe&r=a%00b')) AS t(u);
SELECT encode(name::bytea, 'hex') AS name, encode(value::bytea, 'hex') AS value
FROM uri_params('http://h/?%E9=%C3%A9');
