// SPDX-License-Identifier: MIT
// uriscan_duckdb_sql: the test and benchmark host of the DuckDB extension.
// Opens an in-memory DuckDB (libduckdb.so, allow_unsigned_extensions),
// loads the extension, runs each SQL statement given and writes the rows
// of those that return any as TSV: PostgreSQL's text format (\N for NULL;
// backslash, tab, newline and carriage return escaped), lists and structs
// as DuckDB casts them to VARCHAR.
//
// usage: uriscan_duckdb_sql [--header] [--raw] EXTENSION SQL...
// --raw writes values as they are, unescaped.
// Exit status 0, or 1 with DuckDB's message on stderr.
#include <duckdb.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

bool raw = false;

void WriteText(const char* s, std::string* out) {
  if (raw) {
    out->append(s);
    return;
  }
  for (; *s; ++s) {
    switch (*s) {
      case '\\': out->append("\\\\"); break;
      case '\t': out->append("\\t"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      default: out->push_back(*s);
    }
  }
}

bool Run(duckdb_connection c, const char* sql, bool header) {
  duckdb_result result;
  if (duckdb_query(c, sql, &result) == DuckDBError) {
    std::fprintf(stderr, "uriscan_duckdb_sql: %s\n",
                 duckdb_result_error(&result));
    duckdb_destroy_result(&result);
    return false;
  }
  // The deprecated cell reader spells no nested value: a query with a
  // list or struct column is run again with every column cast to VARCHAR.
  for (idx_t k = 0; k < duckdb_column_count(&result); ++k) {
    const duckdb_type t = duckdb_column_type(&result, k);
    if (t == DUCKDB_TYPE_LIST || t == DUCKDB_TYPE_STRUCT ||
        t == DUCKDB_TYPE_MAP || t == DUCKDB_TYPE_ARRAY ||
        t == DUCKDB_TYPE_UNION) {
      duckdb_destroy_result(&result);
      const std::string cast =
          "SELECT COLUMNS(*)::VARCHAR FROM (" + std::string(sql) + ")";
      return Run(c, cast.c_str(), header);
    }
  }
  const idx_t columns = duckdb_column_count(&result);
  const idx_t rows = duckdb_row_count(&result);
  const bool has_rows =
      duckdb_result_return_type(result) == DUCKDB_RESULT_TYPE_QUERY_RESULT;
  std::string out;
  if (has_rows && header) {
    for (idx_t k = 0; k < columns; ++k) {
      if (k) out.push_back('\t');
      out.append(duckdb_column_name(&result, k));
    }
    out.push_back('\n');
  }
  for (idx_t r = 0; has_rows && r < rows; ++r) {
    for (idx_t k = 0; k < columns; ++k) {
      if (k) out.push_back('\t');
      if (duckdb_value_is_null(&result, k, r)) {
        out.append("\\N");
        continue;
      }
      char* text = duckdb_value_varchar(&result, k, r);
      WriteText(text, &out);
      duckdb_free(text);
    }
    out.push_back('\n');
    if (out.size() > (1u << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  duckdb_destroy_result(&result);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  bool header = false;
  for (; first < argc && argv[first][0] == '-'; ++first) {
    if (std::strcmp(argv[first], "--header") == 0) {
      header = true;
    } else if (std::strcmp(argv[first], "--raw") == 0) {
      raw = true;
    } else {
      break;
    }
  }
  if (argc - first < 1) {
    std::fprintf(stderr,
                 "usage: uriscan_duckdb_sql [--header] [--raw] EXTENSION SQL...\n");
    return 2;
  }
  duckdb_config config;
  duckdb_create_config(&config);
  duckdb_set_config(config, "allow_unsigned_extensions", "true");
  duckdb_database db;
  char* error = nullptr;
  if (duckdb_open_ext(nullptr, &db, config, &error) == DuckDBError) {
    std::fprintf(stderr, "uriscan_duckdb_sql: %s\n", error ? error : "open");
    return 1;
  }
  duckdb_destroy_config(&config);
  duckdb_connection c;
  if (duckdb_connect(db, &c) == DuckDBError) return 1;
  const std::string load = "LOAD '" + std::string(argv[first]) + "'";
  bool ok = Run(c, load.c_str(), false);
  for (int i = first + 1; ok && i < argc; ++i) ok = Run(c, argv[i], header);
  std::fflush(stdout);
  duckdb_disconnect(&c);
  duckdb_close(&db);
  return ok ? 0 : 1;
}
