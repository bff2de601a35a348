// SPDX-License-Identifier: MIT
// The DuckDB extension's entry point: `LOAD 'uriscan.duckdb_extension'`
// calls uriscan_init_c_api, which registers every function.
#include "duckdb/api.h"

DUCKDB_EXTENSION_ENTRYPOINT(duckdb_connection connection,
                            duckdb_extension_info info,
                            struct duckdb_extension_access* access) {
  if (!uriscan::duck::RegisterScalarFunctions(connection) ||
      !uriscan::duck::RegisterReadUris(connection)) {
    access->set_error(info, "uriscan: registering its functions failed");
    return false;
  }
  return true;
}
