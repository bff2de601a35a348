// SPDX-License-Identifier: MIT
// DuckDB's C extension API (duckdb_extension.h, the stable v1.2.0 struct:
// one file loads in DuckDB 1.2 and later) for the extension's sources, and
// what they register.
#ifndef URISCAN_DUCKDB_API_H_
#define URISCAN_DUCKDB_API_H_

#define DUCKDB_EXTENSION_NAME uriscan
#include "duckdb_extension.h"

namespace uriscan {
namespace duck {

// uri_valid ... uri_parse (docs/library.md, "DuckDB").
bool RegisterScalarFunctions(duckdb_connection connection);
// read_uris(path, format, field, base, lenient).
bool RegisterReadUris(duckdb_connection connection);

}  // namespace duck
}  // namespace uriscan

#endif  // URISCAN_DUCKDB_API_H_
