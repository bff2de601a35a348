// SPDX-License-Identifier: MIT
// uriscan-duckdb: a small SQL shell over libduckdb.so with the uriscan
// extension loaded, for trying the extension where no DuckDB shell is
// installed (Debian has none), and the host of its tests and benchmarks.
//
// usage: uriscan-duckdb [OPTIONS] [EXTENSION] [SQL...]
// EXTENSION (a file ending in .duckdb_extension) is loaded first; without
// one, the extension installed beside the shell is, unless --no-extension.
// Each SQL argument is run in order (it may hold several statements, or
// be one dot command); then -f FILE's statements; with neither, those
// read from stdin (a prompt when stdin is a terminal). Lines of the input
// that start with '.' between statements are the shell's own commands
// (.help).
// Exit status 0; 1 after a failed statement (DuckDB's message on stderr;
// the statements after it are not run) or a failed dot command (its
// message on stderr; the statements after it are run); 2 for a usage
// error. At a prompt, failures do not change the status.
#include <duckdb.h>
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

enum class Mode { kTable, kCsv, kTsv, kJson, kLine, kMarkdown, kBox };

struct Settings {
  Mode mode = Mode::kTable;
  bool header = true;
  bool raw = false;    // tsv: values as they are, unescaped
  bool timer = false;  // the time of each statement, on stderr
};

constexpr char kUsage[] =
    "usage: uriscan-duckdb [OPTIONS] [EXTENSION] [SQL...]\n"
    "\n"
    "Runs SQL on an in-memory DuckDB (or --database=FILE) with the uriscan\n"
    "extension loaded: each SQL argument in order, then the statements of\n"
    "-f FILE, or with neither those of stdin.\n"
    "\n"
    "  EXTENSION              a .duckdb_extension file to load (default: the\n"
    "                         one installed beside this shell)\n"
    "  -c SQL                 run SQL (as an SQL argument)\n"
    "  -f FILE                run the statements of FILE\n"
    "  --database=FILE        a database file, opened or made\n"
    "  --mode=MODE            table (default), csv, tsv, json, line, markdown\n"
    "                         or box\n"
    "  --header, --no-header  column names first (default: on, but for tsv)\n"
    "  --raw                  tsv: values as they are (else PostgreSQL's text\n"
    "                         format: \\N for NULL, \\t \\n \\r \\\\ escaped)\n"
    "  --timer                each statement's time on stderr\n"
    "  --no-extension         load none (a LOAD in the SQL still works)\n"
    "  --interrupt-after=MS   interrupt the statement running after MS\n"
    "                         milliseconds, as Ctrl-C does (for tests)\n"
    "\n"
    "Dot commands: a line of the input that starts with '.' between\n"
    "statements, or an SQL argument that does:\n"
    "  .mode MODE             as --mode\n"
    "  .headers on|off        column names first, or not\n"
    "  .timer on|off          each statement's time on stderr, or not\n"
    "  .tables [PATTERN]      the names of the tables and views\n"
    "  .schema [PATTERN]      their CREATE statements, and their indexes'\n"
    "                         (PATTERN: a name, or an ILIKE pattern)\n"
    "  .read FILE             run the statements and dot commands of FILE\n"
    "  .help                  this text\n"
    "  .quit, .exit           stop here\n"
    "\n"
    "A failed statement ends the run with status 1. A dot command that fails\n"
    "(an unknown one, a missing file) prints why and the run goes on, to end\n"
    "with status 1. At a prompt, neither ends the session or sets the\n"
    "status.\n";

// The value of column k, row r, as text (NULL: nullptr).
std::string Cell(duckdb_result* result, idx_t k, idx_t r, bool* null) {
  *null = duckdb_value_is_null(result, k, r);
  if (*null) return {};
  char* text = duckdb_value_varchar(result, k, r);
  std::string s = text ? text : "";
  duckdb_free(text);
  return s;
}

void AppendTsv(const std::string& s, bool raw, std::string* out) {
  if (raw) {
    out->append(s);
    return;
  }
  for (const char c : s) {
    switch (c) {
      case '\\': out->append("\\\\"); break;
      case '\t': out->append("\\t"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      default: out->push_back(c);
    }
  }
}

void AppendCsv(const std::string& s, std::string* out) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (const char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// The length of the UTF-8 character at s[i]; for bytes that start none,
// minus the length of the ill-formed part that one U+FFFD replaces (its
// "maximal subpart": as Python's and the WHATWG's decoders count).
int Utf8Length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  int n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong form
    if (c == 0xED) hi = 0x9F;  // no surrogate
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong form
    if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return -1;
  }
  for (int k = 1; k < n; ++k, lo = 0x80, hi = 0xBF) {
    if (i + k >= s.size()) return -k;
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if (b < lo || b > hi) return -k;
  }
  return n;
}

// A JSON string: '"' and '\' escaped, control characters as \u00XX, and
// bytes that are no UTF-8 (a column's name, an extension's string) as
// U+FFFD, so that the output is always valid JSON.
void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(s[i++]);
    } else if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      ++i;
    } else if (const int n = Utf8Length(s, i); n > 0) {
      out->append(s.substr(i, n));
      i += n;
    } else {
      out->append("\xEF\xBF\xBD");  // U+FFFD
      i += -n;
    }
  }
  out->push_back('"');
}

bool IsNumber(duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER: case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT: case DUCKDB_TYPE_UHUGEINT:
    case DUCKDB_TYPE_FLOAT: case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_DECIMAL:
      return true;
    default:
      return false;
  }
}

// --mode=json reads the result's vectors, typed, through DuckDB's C API:
// a number, a boolean, a list or a struct becomes JSON's own, not the
// text the other modes print.

// A column's type, read once: the parts of a LIST, ARRAY, MAP, STRUCT or
// UNION, the names of a STRUCT's fields, a UNION's members, an ENUM's
// values, a DECIMAL's scale and the integers that hold it.
struct Type {
  duckdb_type id = DUCKDB_TYPE_INVALID;
  duckdb_type storage = DUCKDB_TYPE_INVALID;  // DECIMAL, ENUM
  uint8_t scale = 0;                          // DECIMAL
  idx_t size = 0;                             // ARRAY
  std::vector<std::string> names;
  std::vector<Type> parts;
};

Type Describe(duckdb_logical_type t) {
  Type d;
  d.id = duckdb_get_type_id(t);
  auto part = [&d](duckdb_logical_type p) {
    d.parts.push_back(Describe(p));
    duckdb_destroy_logical_type(&p);
  };
  auto name = [&d](char* text) {
    d.names.emplace_back(text ? text : "");
    duckdb_free(text);
  };
  switch (d.id) {
    case DUCKDB_TYPE_DECIMAL:
      d.storage = duckdb_decimal_internal_type(t);
      d.scale = duckdb_decimal_scale(t);
      break;
    case DUCKDB_TYPE_ENUM:
      d.storage = duckdb_enum_internal_type(t);
      for (idx_t i = 0; i < duckdb_enum_dictionary_size(t); ++i)
        name(duckdb_enum_dictionary_value(t, i));
      break;
    case DUCKDB_TYPE_LIST:
      part(duckdb_list_type_child_type(t));
      break;
    case DUCKDB_TYPE_ARRAY:
      d.size = duckdb_array_type_array_size(t);
      part(duckdb_array_type_child_type(t));
      break;
    case DUCKDB_TYPE_MAP:
      part(duckdb_map_type_key_type(t));
      part(duckdb_map_type_value_type(t));
      break;
    case DUCKDB_TYPE_STRUCT:
      for (idx_t i = 0; i < duckdb_struct_type_child_count(t); ++i) {
        name(duckdb_struct_type_child_name(t, i));
        part(duckdb_struct_type_child_type(t, i));
      }
      break;
    case DUCKDB_TYPE_UNION:
      for (idx_t i = 0; i < duckdb_union_type_member_count(t); ++i) {
        name(duckdb_union_type_member_name(t, i));
        part(duckdb_union_type_member_type(t, i));
      }
      break;
    default:
      break;
  }
  return d;
}

template <typename T>
T At(duckdb_vector v, idx_t i) {
  return static_cast<const T*>(duckdb_vector_get_data(v))[i];
}

std::string_view StringAt(duckdb_vector v, idx_t i) {
  auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(v)) + i;
  return {duckdb_string_t_data(s), duckdb_string_t_length(*s)};
}

// HUGEINT, UHUGEINT and the widest DECIMALs: 128 bits (GCC's and Clang's
// own integer type, as DuckDB's C API has none).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

Int128 ToInt128(duckdb_hugeint h) {
  return static_cast<Int128>(
      static_cast<UInt128>(static_cast<uint64_t>(h.upper)) << 64 | h.lower);
}

std::string Digits(UInt128 v) {
  std::string s;
  do {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(s.begin(), s.end());
  return s;
}

// An integer `scale` decimal digits to the right: -12345, 2 is -123.45.
void AppendDecimal(Int128 v, uint8_t scale, std::string* out) {
  if (v < 0) out->push_back('-');
  std::string digits =
      Digits(v < 0 ? -static_cast<UInt128>(v) : static_cast<UInt128>(v));
  if (scale > 0) {
    if (digits.size() <= scale)
      digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, ".");
  }
  out->append(digits);
}

// The shortest text that reads back as the same number; JSON has no NaN
// and no infinity: null.
template <typename F>
void AppendFloat(F f, std::string* out) {
  if (!std::isfinite(f)) {
    out->append("null");
    return;
  }
  char text[64];
  const auto end = std::to_chars(text, text + sizeof text, f).ptr;
  out->append(text, end);
}

// DuckDB's own text of a value JSON has no type for (a date, a UUID, a
// blob's \xNN escapes), as the other modes print it: the value remade
// through the C API and cast to VARCHAR.
std::string Text(duckdb_value value) {
  char* text = duckdb_get_varchar(value);
  std::string s = text ? text : "";
  duckdb_free(text);
  duckdb_destroy_value(&value);
  return s;
}

// A BIGNUM's digits: its vector holds a 3-byte header (the first byte's
// top bit clear for a negative number, whose bytes are all inverted), then
// the magnitude's bytes, most significant first.
std::string BignumDigits(std::string_view blob) {
  if (blob.size() < 4) return "0";
  const bool negative = (static_cast<unsigned char>(blob[0]) & 0x80) == 0;
  std::vector<uint8_t> bytes;
  for (size_t i = 3; i < blob.size(); ++i) {
    const auto b = static_cast<uint8_t>(blob[i]);
    bytes.push_back(negative ? static_cast<uint8_t>(~b) : b);
  }
  return Text(duckdb_create_bignum({bytes.data(), bytes.size(), negative}));
}

void AppendJson(duckdb_vector v, const Type& t, idx_t i, std::string* out) {
  const uint64_t* valid = duckdb_vector_get_validity(v);
  if (valid && !(valid[i / 64] >> (i % 64) & 1)) {
    out->append("null");
    return;
  }
  auto text = [out](duckdb_value value) { AppendJsonString(Text(value), out); };
  auto items = [&](duckdb_vector child, const Type& type, idx_t first,
                   idx_t count) {
    out->push_back('[');
    for (idx_t k = 0; k < count; ++k) {
      if (k) out->push_back(',');
      AppendJson(child, type, first + k, out);
    }
    out->push_back(']');
  };
  auto number = [out](auto n) { out->append(std::to_string(n)); };
  switch (t.id) {
    case DUCKDB_TYPE_BOOLEAN:
      out->append(At<bool>(v, i) ? "true" : "false");
      return;
    case DUCKDB_TYPE_TINYINT: return number(At<int8_t>(v, i));
    case DUCKDB_TYPE_SMALLINT: return number(At<int16_t>(v, i));
    case DUCKDB_TYPE_INTEGER: return number(At<int32_t>(v, i));
    case DUCKDB_TYPE_BIGINT: return number(At<int64_t>(v, i));
    case DUCKDB_TYPE_UTINYINT: return number(At<uint8_t>(v, i));
    case DUCKDB_TYPE_USMALLINT: return number(At<uint16_t>(v, i));
    case DUCKDB_TYPE_UINTEGER: return number(At<uint32_t>(v, i));
    case DUCKDB_TYPE_UBIGINT: return number(At<uint64_t>(v, i));
    case DUCKDB_TYPE_HUGEINT:
      return AppendDecimal(ToInt128(At<duckdb_hugeint>(v, i)), 0, out);
    case DUCKDB_TYPE_UHUGEINT: {
      const auto u = At<duckdb_uhugeint>(v, i);
      out->append(Digits(static_cast<UInt128>(u.upper) << 64 | u.lower));
      return;
    }
    case DUCKDB_TYPE_FLOAT: return AppendFloat(At<float>(v, i), out);
    case DUCKDB_TYPE_DOUBLE: return AppendFloat(At<double>(v, i), out);
    case DUCKDB_TYPE_DECIMAL: {
      Int128 n = 0;
      switch (t.storage) {
        case DUCKDB_TYPE_SMALLINT: n = At<int16_t>(v, i); break;
        case DUCKDB_TYPE_INTEGER: n = At<int32_t>(v, i); break;
        case DUCKDB_TYPE_BIGINT: n = At<int64_t>(v, i); break;
        default: n = ToInt128(At<duckdb_hugeint>(v, i)); break;
      }
      AppendDecimal(n, t.scale, out);
      return;
    }
    case DUCKDB_TYPE_BIGNUM:
      out->append(BignumDigits(StringAt(v, i)));
      return;
    case DUCKDB_TYPE_VARCHAR:
      AppendJsonString(StringAt(v, i), out);
      return;
    case DUCKDB_TYPE_ENUM: {
      idx_t k = 0;
      switch (t.storage) {
        case DUCKDB_TYPE_UTINYINT: k = At<uint8_t>(v, i); break;
        case DUCKDB_TYPE_USMALLINT: k = At<uint16_t>(v, i); break;
        default: k = At<uint32_t>(v, i); break;
      }
      AppendJsonString(k < t.names.size() ? t.names[k] : "", out);
      return;
    }
    case DUCKDB_TYPE_LIST: {
      const auto entry = At<duckdb_list_entry>(v, i);
      items(duckdb_list_vector_get_child(v), t.parts[0], entry.offset,
            entry.length);
      return;
    }
    case DUCKDB_TYPE_ARRAY:
      items(duckdb_array_vector_get_child(v), t.parts[0], i * t.size, t.size);
      return;
    case DUCKDB_TYPE_STRUCT:
      out->push_back('{');
      for (idx_t k = 0; k < t.parts.size(); ++k) {
        if (k) out->push_back(',');
        AppendJsonString(t.names[k], out);
        out->push_back(':');
        AppendJson(duckdb_struct_vector_get_child(v, k), t.parts[k], i, out);
      }
      out->push_back('}');
      return;
    case DUCKDB_TYPE_MAP: {
      // An object (a MAP's keys are unique and never NULL), each key as
      // a string: a VARCHAR as it is, any other key as its JSON's text.
      const auto entry = At<duckdb_list_entry>(v, i);
      duckdb_vector pairs = duckdb_list_vector_get_child(v);
      duckdb_vector keys = duckdb_struct_vector_get_child(pairs, 0);
      duckdb_vector values = duckdb_struct_vector_get_child(pairs, 1);
      out->push_back('{');
      for (idx_t k = entry.offset; k < entry.offset + entry.length; ++k) {
        if (k > entry.offset) out->push_back(',');
        std::string key;
        AppendJson(keys, t.parts[0], k, &key);
        if (key[0] == '"') out->append(key);
        else AppendJsonString(key, out);
        out->push_back(':');
        AppendJson(values, t.parts[1], k, out);
      }
      out->push_back('}');
      return;
    }
    case DUCKDB_TYPE_UNION: {
      // The member it holds (its tag is the vector's first part).
      const auto tag = At<uint8_t>(duckdb_struct_vector_get_child(v, 0), i);
      AppendJson(duckdb_struct_vector_get_child(v, tag + 1), t.parts[tag], i,
                 out);
      return;
    }
    // JSON has no type for these: DuckDB's text of them, as a string.
    case DUCKDB_TYPE_DATE:
      return text(duckdb_create_date(At<duckdb_date>(v, i)));
    case DUCKDB_TYPE_TIME:
      return text(duckdb_create_time(At<duckdb_time>(v, i)));
    case DUCKDB_TYPE_TIME_NS:
      return text(duckdb_create_time_ns(At<duckdb_time_ns>(v, i)));
    case DUCKDB_TYPE_TIME_TZ:
      return text(duckdb_create_time_tz_value(At<duckdb_time_tz>(v, i)));
    case DUCKDB_TYPE_TIMESTAMP:
      return text(duckdb_create_timestamp(At<duckdb_timestamp>(v, i)));
    case DUCKDB_TYPE_TIMESTAMP_TZ:
      return text(duckdb_create_timestamp_tz(At<duckdb_timestamp>(v, i)));
    case DUCKDB_TYPE_TIMESTAMP_S:
      return text(duckdb_create_timestamp_s(At<duckdb_timestamp_s>(v, i)));
    case DUCKDB_TYPE_TIMESTAMP_MS:
      return text(duckdb_create_timestamp_ms(At<duckdb_timestamp_ms>(v, i)));
    case DUCKDB_TYPE_TIMESTAMP_NS:
      return text(duckdb_create_timestamp_ns(At<duckdb_timestamp_ns>(v, i)));
    case DUCKDB_TYPE_INTERVAL:
      return text(duckdb_create_interval(At<duckdb_interval>(v, i)));
    case DUCKDB_TYPE_UUID: {
      // Held with its top bit flipped (for the order of comparisons).
      const auto h = At<duckdb_hugeint>(v, i);
      return text(duckdb_create_uuid(
          {h.lower, static_cast<uint64_t>(h.upper) ^ (uint64_t{1} << 63)}));
    }
    case DUCKDB_TYPE_BLOB: {
      const std::string_view b = StringAt(v, i);
      return text(duckdb_create_blob(
          reinterpret_cast<const uint8_t*>(b.data()), b.size()));
    }
    case DUCKDB_TYPE_BIT: {
      const std::string_view b = StringAt(v, i);
      std::vector<uint8_t> bytes(b.begin(), b.end());
      return text(duckdb_create_bit({bytes.data(), bytes.size()}));
    }
    default:
      // A type the C API does not name (DuckDB 1.4 gives TIME_NS as
      // INVALID): nothing to read its value by.
      out->append("null");
      return;
  }
}

// The result as a JSON array of objects, one a row.
void PrintJson(duckdb_result* result) {
  const idx_t columns = duckdb_column_count(result);
  std::vector<std::string> keys;
  std::vector<Type> types;
  for (idx_t k = 0; k < columns; ++k) {
    std::string key;
    AppendJsonString(duckdb_column_name(result, k), &key);
    keys.push_back(key + ":");
    duckdb_logical_type t = duckdb_column_logical_type(result, k);
    types.push_back(Describe(t));
    duckdb_destroy_logical_type(&t);
  }
  std::string out = "[";
  idx_t row = 0;
  while (duckdb_data_chunk chunk = duckdb_fetch_chunk(*result)) {
    const idx_t size = duckdb_data_chunk_get_size(chunk);
    for (idx_t r = 0; r < size; ++r, ++row) {
      out += row ? ",\n{" : "{";
      for (idx_t k = 0; k < columns; ++k) {
        if (k) out += ",";
        out += keys[k];
        AppendJson(duckdb_data_chunk_get_vector(chunk, k), types[k], r, &out);
      }
      out += "}";
      if (out.size() > (1u << 20)) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
      }
    }
    duckdb_destroy_data_chunk(&chunk);
  }
  out += "]\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
}

// Characters, not bytes, for the table's widths (UTF-8).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string Repeat(const char* s, size_t n) {
  std::string r;
  for (size_t i = 0; i < n; ++i) r += s;
  return r;
}

// The modes that draw a grid: table, box and markdown (json: PrintJson).
void Draw(duckdb_result* result, const Settings& s,
          std::vector<std::string> names, const std::vector<duckdb_type>& types,
          std::string* out) {
  const idx_t columns = names.size();
  const idx_t rows = duckdb_row_count(result);
  const bool markdown = s.mode == Mode::kMarkdown;
  const bool header = s.header || markdown;  // a pipe table needs its names
  // A markdown cell ends at a '|' that is not escaped.
  auto escape = [markdown](std::string* v) {
    if (!markdown) return;
    for (size_t i = 0; (i = v->find('|', i)) != std::string::npos; i += 2)
      v->insert(i, "\\");
  };
  for (std::string& name : names) escape(&name);
  // Every value first, for the widths, on one line. The table, for a
  // terminal, cuts a long value; box and markdown, as DuckDB's shell
  // draws them, do not.
  constexpr size_t kMost = 60;
  std::vector<std::vector<std::string>> cells(rows);
  std::vector<size_t> width(columns);
  for (idx_t k = 0; k < columns; ++k) width[k] = header ? Width(names[k]) : 1;
  bool null = false;
  for (idx_t r = 0; r < rows; ++r) {
    for (idx_t k = 0; k < columns; ++k) {
      std::string v = Cell(result, k, r, &null);
      if (null) v = "NULL";
      for (char& c : v)
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
      escape(&v);
      if (s.mode == Mode::kTable && Width(v) > kMost) {
        size_t bytes = 0, chars = 0;
        while (bytes < v.size() && chars < kMost - 1) {
          ++bytes;
          while (bytes < v.size() &&
                 (static_cast<unsigned char>(v[bytes]) & 0xC0) == 0x80)
            ++bytes;
          ++chars;
        }
        v = v.substr(0, bytes) + "\xE2\x80\xA6";  // ...
      }
      width[k] = std::max(width[k], Width(v));
      cells[r].push_back(std::move(v));
    }
  }
  // One row between `bar`s: in the table a number to the right; in box
  // and markdown every value to the left and the names centred, as
  // DuckDB's shell has them.
  auto line = [&](const std::vector<std::string>& values, bool names_row,
                  const char* bar) {
    *out += bar;
    for (idx_t k = 0; k < columns; ++k) {
      const size_t pad = width[k] - Width(values[k]);
      size_t before = 0;
      if (s.mode == Mode::kTable) before = IsNumber(types[k]) ? pad : 0;
      else if (names_row) before = pad / 2;
      *out += " " + std::string(before, ' ') + values[k] +
              std::string(pad - before, ' ') + " " + bar;
    }
    *out += "\n";
  };
  if (s.mode == Mode::kTable) {
    std::string rule = "+";
    for (idx_t k = 0; k < columns; ++k)
      rule += std::string(width[k] + 2, '-') + "+";
    rule += "\n";
    *out += rule;
    if (header) {
      line(names, true, "|");
      *out += rule;
    }
    for (idx_t r = 0; r < rows; ++r) line(cells[r], false, "|");
    if (rows > 0) *out += rule;
    *out += std::to_string(rows) + (rows == 1 ? " row\n" : " rows\n");
  } else if (markdown) {
    // The second line: a column of numbers is aligned right (":").
    line(names, true, "|");
    *out += "|";
    for (idx_t k = 0; k < columns; ++k)
      *out += std::string(width[k] + 1, '-') +
              (IsNumber(types[k]) ? ":|" : "-|");
    *out += "\n";
    for (idx_t r = 0; r < rows; ++r) line(cells[r], false, "|");
  } else {
    auto rule = [&](const char* left, const char* middle, const char* right) {
      *out += left;
      for (idx_t k = 0; k < columns; ++k)
        *out += (k ? middle : "") +
                Repeat("\xE2\x94\x80", width[k] + 2);  // light horizontal
      *out += std::string(right) + "\n";
    };
    const char* bar = "\xE2\x94\x82";  // light vertical
    rule("\xE2\x94\x8C", "\xE2\x94\xAC", "\xE2\x94\x90");  // the top corners and tee
    if (header) line(names, true, bar);
    if (header && rows > 0)
      rule("\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4");  // the tees and cross of a rule
    for (idx_t r = 0; r < rows; ++r) line(cells[r], false, bar);
    rule("\xE2\x94\x94", "\xE2\x94\xB4", "\xE2\x94\x98");  // the bottom corners and tee
  }
}

void Print(duckdb_result* result, const Settings& s) {
  const idx_t columns = duckdb_column_count(result);
  const idx_t rows = duckdb_row_count(result);
  std::vector<std::string> names;
  std::vector<duckdb_type> types;
  for (idx_t k = 0; k < columns; ++k) {
    names.push_back(duckdb_column_name(result, k));
    types.push_back(duckdb_column_type(result, k));
  }
  std::string out;
  bool null = false;
  auto flush = [&] {
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  if (s.mode == Mode::kTable || s.mode == Mode::kBox ||
      s.mode == Mode::kMarkdown) {
    Draw(result, s, names, types, &out);
    flush();
    return;
  }
  if (s.header && (s.mode == Mode::kCsv || s.mode == Mode::kTsv)) {
    for (idx_t k = 0; k < columns; ++k) {
      if (k) out += s.mode == Mode::kCsv ? "," : "\t";
      if (s.mode == Mode::kCsv) AppendCsv(names[k], &out);
      else AppendTsv(names[k], s.raw, &out);
    }
    out += "\n";
  }
  for (idx_t r = 0; r < rows; ++r) {
    for (idx_t k = 0; k < columns; ++k) {
      const std::string v = Cell(result, k, r, &null);
      switch (s.mode) {
        case Mode::kCsv:
          if (k) out += ",";
          if (!null) AppendCsv(v, &out);
          break;
        case Mode::kTsv:
          if (k) out += "\t";
          if (null) out += "\\N";
          else AppendTsv(v, s.raw, &out);
          break;
        case Mode::kLine:
          out += names[k] + " = " + (null ? std::string("NULL") : v) + "\n";
          break;
        default:
          break;
      }
    }
    out += "\n";
    if (out.size() > (1u << 20)) flush();
  }
  flush();
}

bool ParseMode(const std::string& name, Mode* mode) {
  static const std::pair<const char*, Mode> kModes[] = {
      {"table", Mode::kTable}, {"csv", Mode::kCsv},
      {"tsv", Mode::kTsv},     {"json", Mode::kJson},
      {"line", Mode::kLine},   {"markdown", Mode::kMarkdown},
      {"box", Mode::kBox}};
  for (const auto& [n, m] : kModes) {
    if (name == n) {
      *mode = m;
      return true;
    }
  }
  return false;
}

bool Nested(duckdb_result* result) {
  for (idx_t k = 0; k < duckdb_column_count(result); ++k) {
    switch (duckdb_column_type(result, k)) {
      case DUCKDB_TYPE_LIST: case DUCKDB_TYPE_STRUCT: case DUCKDB_TYPE_MAP:
      case DUCKDB_TYPE_ARRAY: case DUCKDB_TYPE_UNION:
        return true;
      default:
        break;
    }
  }
  return false;
}

class Shell {
 public:
  Shell(duckdb_connection c, Settings s) : c_(c), s_(s) {}
  void set_timer(bool on) { s_.timer = on; }

  // Runs every statement of `sql`; false after the first that fails.
  bool Run(const std::string& sql) {
    duckdb_extracted_statements extracted = nullptr;
    const idx_t n = duckdb_extract_statements(c_, sql.c_str(), &extracted);
    if (n == 0) {
      // The message belongs to `extracted`: copied before it is freed.
      const char* text = duckdb_extract_statements_error(extracted);
      const bool failed = text != nullptr;
      const std::string error = failed ? text : "";
      duckdb_destroy_extracted(&extracted);
      if (!failed) return true;  // nothing but space and comments
      std::fprintf(stderr, "uriscan-duckdb: %s\n", error.c_str());
      return false;
    }
    bool ok = true;
    for (idx_t i = 0; ok && i < n; ++i) {
      duckdb_prepared_statement prepared = nullptr;
      const auto start = std::chrono::steady_clock::now();
      if (duckdb_prepare_extracted_statement(c_, extracted, i, &prepared) ==
          DuckDBError) {
        std::fprintf(stderr, "uriscan-duckdb: %s\n",
                     duckdb_prepare_error(prepared));
        ok = false;
      } else {
        duckdb_result result;
        if (duckdb_execute_prepared(prepared, &result) == DuckDBError) {
          std::fprintf(stderr, "uriscan-duckdb: %s\n",
                       duckdb_result_error(&result));
          ok = false;
        } else if (duckdb_result_return_type(result) ==
                   DUCKDB_RESULT_TYPE_QUERY_RESULT) {
          if (s_.mode == Mode::kJson) {
            PrintJson(&result);  // typed, nested values as they are
          } else if (!Nested(&result)) {
            Print(&result, s_);
          } else if (n == 1) {
            // The cell reader spells no nested value (a LIST, a STRUCT):
            // the statement again, every column cast to VARCHAR.
            std::string inner = sql;
            while (!inner.empty() &&
                   std::strchr(" \t\r\n;", inner.back()) != nullptr)
              inner.pop_back();
            duckdb_result cast;
            const std::string text =
                "SELECT COLUMNS(*)::VARCHAR FROM (" + inner + "\n)";
            if (duckdb_query(c_, text.c_str(), &cast) == DuckDBError) {
              std::fprintf(stderr, "uriscan-duckdb: %s\n",
                           duckdb_result_error(&cast));
              ok = false;
            } else {
              Print(&cast, s_);
            }
            duckdb_destroy_result(&cast);
          } else {
            std::fprintf(stderr,
                         "uriscan-duckdb: a result with LIST, STRUCT or MAP "
                         "columns is shown only for a statement given alone "
                         "(one a line, or one an argument)\n");
            ok = false;
          }
        }
        duckdb_destroy_result(&result);
      }
      duckdb_destroy_prepare(&prepared);
      if (s_.timer) {
        std::fprintf(stderr, "Run Time (s): real %.3f\n",
                     std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count());
      }
    }
    duckdb_destroy_extracted(&extracted);
    std::fflush(stdout);
    return ok;
  }

  // An SQL argument: a dot command when it starts with '.', as a line of
  // the input would be.
  bool Argument(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '.')
      return Dot(text.substr(first));
    return Run(text);
  }

  // A line that starts with '.': the shell's own command. False when a
  // statement it runs (.read) fails; its own failures (an unknown
  // command, a missing file) are Complain()'s, after which the run goes
  // on.
  bool Dot(const std::string& line) {
    std::string command = line, arg;
    const size_t space = line.find_first_of(" \t\r\n");  // \r: a CRLF file
    if (space != std::string::npos) {
      command = line.substr(0, space);
      arg = Unquote(line.substr(space));
    }
    if (command == ".quit" || command == ".exit") {
      quit_ = true;
    } else if (command == ".help") {
      std::fputs(kUsage, stdout);
    } else if (command == ".mode") {
      if (!ParseMode(arg, &s_.mode))
        Complain(".mode takes table, csv, tsv, json, line, markdown or box, "
                 "not '" + arg + "'");
    } else if (command == ".headers" || command == ".header") {
      if (arg == "on" || arg == "off") s_.header = arg == "on";
      else Complain(command + " takes on or off, not '" + arg + "'");
    } else if (command == ".timer") {
      if (arg == "on" || arg == "off") s_.timer = arg == "on";
      else Complain(".timer takes on or off, not '" + arg + "'");
    } else if (command == ".tables") {
      Tables(arg);
    } else if (command == ".schema") {
      Schema(arg);
    } else if (command == ".read") {
      return Read(arg);
    } else {
      Complain("unknown command: " + command + "; .help lists them");
    }
    std::fflush(stdout);
    return true;
  }

  // The statements of `in`, a statement ending at a line that ends in
  // ';' (and the rest at the end), with dot commands between them.
  bool RunStream(std::istream& in, bool prompt) {
    if (prompt) interactive_ = true;
    std::string pending, line;
    if (prompt) std::fputs("D ", stdout), std::fflush(stdout);
    while (!quit_ && std::getline(in, line)) {
      const size_t first = line.find_first_not_of(" \t\r");
      const bool blank = pending.find_first_not_of(" \t\r\n") ==
                         std::string::npos;
      if (blank && first != std::string::npos && line[first] == '.') {
        if (!Dot(line.substr(first)) && !prompt) return false;
      } else {
        pending += line + "\n";
        const size_t last = line.find_last_not_of(" \t\r");
        if (last != std::string::npos && line[last] == ';') {
          if (!Run(pending) && !prompt) return false;
          pending.clear();
        }
      }
      if (prompt && !quit_) {
        std::fputs(pending.empty() ? "D " : "> ", stdout);
        std::fflush(stdout);
      }
    }
    if (prompt) std::fputs("\n", stdout);
    return quit_ || Run(pending);
  }

  // After .quit: the rest of the input, arguments and files is not run.
  bool quit() const { return quit_; }
  // After a dot command failed (not at a prompt): status 1 at the end.
  bool failed() const { return failed_; }

 private:
  // A dot command's failure: its message, and status 1 at the end of a
  // run that is not at a prompt (as for a failed statement), but the
  // statements after it still run.
  void Complain(const std::string& message) {
    std::fprintf(stderr, "uriscan-duckdb: %s\n", message.c_str());
    if (!interactive_) failed_ = true;
  }

  // A dot command's argument: the rest of its line, without the space
  // around it or the quotes that may hold a file name with spaces.
  static std::string Unquote(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    std::string s =
        text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
    if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"') && s.back() == s[0])
      s = s.substr(1, s.size() - 2);
    return s;
  }

  static std::string Literal(const std::string& text) {
    std::string quoted = "'";
    for (const char ch : text) quoted += ch == '\'' ? "''" : std::string(1, ch);
    return quoted + "'";
  }

  // The first column of the rows of `sql`, a query of the catalog's
  // (false after Complain() when it fails).
  bool Column(const std::string& sql, std::vector<std::string>* values) {
    duckdb_result result;
    const bool ok = duckdb_query(c_, sql.c_str(), &result) != DuckDBError;
    if (!ok) Complain(duckdb_result_error(&result));
    bool null = false;
    for (idx_t r = 0; ok && r < duckdb_row_count(&result); ++r)
      values->push_back(Cell(&result, 0, r, &null));
    duckdb_destroy_result(&result);
    return ok;
  }

  // .tables [PATTERN]: the names of the tables and views (a temporary
  // one's too), those of another schema or database qualified, in
  // columns down the page as DuckDB's shell lists them.
  void Tables(const std::string& pattern) {
    std::vector<std::string> names;
    const std::string sql =
        "SELECT DISTINCT CASE WHEN d IN (current_database(), 'temp') AND "
        "s = current_schema() THEN '' WHEN d = current_database() THEN "
        "s || '.' ELSE d || '.' || s || '.' END || t AS name FROM ("
        "SELECT database_name AS d, schema_name AS s, table_name AS t FROM "
        "duckdb_tables() WHERE NOT internal UNION ALL SELECT database_name, "
        "schema_name, view_name FROM duckdb_views() WHERE NOT internal) "
        "WHERE t ILIKE " + Literal(pattern.empty() ? "%" : pattern) +
        " ORDER BY name";
    if (!Column(sql, &names) || names.empty()) return;
    size_t most = 0;
    for (const std::string& name : names) most = std::max(most, Width(name));
    const size_t across = std::max<size_t>(1, 80 / (most + 2));
    const size_t lines = (names.size() + across - 1) / across;
    std::string out;
    for (size_t l = 0; l < lines; ++l) {
      for (size_t i = l; i < names.size(); i += lines) {
        if (i != l) out += std::string(most + 2 - Width(names[i - lines]), ' ');
        out += names[i];
      }
      out += "\n";
    }
    std::fputs(out.c_str(), stdout);
  }

  // .schema [PATTERN]: the CREATE statements of the tables and views,
  // each followed by those of its indexes.
  void Schema(const std::string& pattern) {
    std::vector<std::string> statements;
    const std::string sql =
        "SELECT sql FROM (SELECT database_name AS d, schema_name AS s, "
        "table_name AS t, 0 AS k, table_name AS n, sql FROM duckdb_tables() "
        "WHERE NOT internal UNION ALL SELECT database_name, schema_name, "
        "view_name, 0, view_name, sql FROM duckdb_views() WHERE NOT internal "
        "UNION ALL SELECT database_name, schema_name, table_name, 1, "
        "index_name, sql FROM duckdb_indexes() WHERE sql IS NOT NULL) "
        "WHERE t ILIKE " + Literal(pattern.empty() ? "%" : pattern) +
        " ORDER BY d, s, t, k, n";
    if (!Column(sql, &statements)) return;
    for (const std::string& statement : statements)
      std::printf("%s\n", statement.c_str());
  }

  // .read FILE: its statements and dot commands, as if they stood here.
  bool Read(const std::string& file) {
    constexpr int kDeepest = 16;  // a file that reads itself ends
    if (file.empty()) {
      Complain(".read takes a file");
      return true;
    }
    if (depth_ >= kDeepest) {
      Complain(".read " + file + ": more than " + std::to_string(kDeepest) +
               " files read one within another");
      return true;
    }
    std::ifstream in(file);
    if (!in) {
      Complain("cannot read " + file + ": " + std::strerror(errno));
      return true;
    }
    ++depth_;
    const bool ok = RunStream(in, false);
    --depth_;
    return ok;
  }

  duckdb_connection c_;
  Settings s_;
  bool quit_ = false;
  bool failed_ = false;
  bool interactive_ = false;  // at a prompt, failures leave the status 0
  int depth_ = 0;             // of .read within .read
};

// The extension installed beside the shell: ../lib/uriscan/ (an install)
// or the directory of the shell itself (a build tree).
std::string DefaultExtension() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  self[n] = '\0';
  std::string dir(self);
  dir.resize(dir.rfind('/'));
  for (const std::string& candidate :
       {dir + "/../lib/uriscan/uriscan.duckdb_extension",
        dir + "/uriscan.duckdb_extension"}) {
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

bool EndsWith(const std::string& s, const char* end) {
  const size_t n = std::strlen(end);
  return s.size() >= n && s.compare(s.size() - n, n, end) == 0;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "uriscan-duckdb: %s\ntry 'uriscan-duckdb --help'\n",
               message.c_str());
  return 2;
}

}  // namespace

// Ctrl-C (SIGINT) ends the statement running, not the shell: the signal
// handler writes a byte into a pipe, a thread of the shell's own reads it
// and interrupts the connection. duckdb_interrupt() alone cannot end a
// read_uris that waits for input with no row (DuckDB's C API shows a table
// function no interrupt): the extension's uriscan_duckdb_interrupt() is
// called beside it.
class Interrupter {
 public:
  Interrupter(duckdb_connection c, std::string extension)
      : c_(c), extension_(std::move(extension)) {
    if (::pipe(fds_) != 0) return;
    self_ = this;
    struct sigaction sa = {};
    sa.sa_handler = [](int) {
      const char byte = 1;
      if (self_) (void)!::write(self_->fds_[1], &byte, 1);
    };
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    thread_ = std::thread([this] {
      char byte;
      while (::read(fds_[0], &byte, 1) == 1 && byte == 1) Interrupt();
    });
  }
  ~Interrupter() {
    std::signal(SIGINT, SIG_DFL);
    self_ = nullptr;
    if (thread_.joinable()) {
      const char stop = 0;
      (void)!::write(fds_[1], &stop, 1);
      thread_.join();
    }
  }
  // After `ms` milliseconds, as if Ctrl-C were pressed (for tests).
  void After(int ms) {
    std::thread([this, ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      const char byte = 1;
      (void)!::write(fds_[1], &byte, 1);
    }).detach();
  }

 private:
  void Interrupt() {
    if (!extension_.empty()) {
      if (void* h = ::dlopen(extension_.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        if (void* f = ::dlsym(h, "uriscan_duckdb_interrupt"))
          reinterpret_cast<void (*)()>(f)();
        ::dlclose(h);
      }
    }
    duckdb_interrupt(c_);
  }
  static Interrupter* self_;
  duckdb_connection c_;
  std::string extension_;
  int fds_[2] = {-1, -1};
  std::thread thread_;
};
Interrupter* Interrupter::self_ = nullptr;

int main(int argc, char** argv) {
  Settings s;
  int interrupt_after = -1;
  bool header_given = false, load = true;
  std::string extension, database, file;
  std::vector<std::string> sql;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) == 0) {
        *out = a.substr(prefix.size());
        return true;
      }
      if (a == name && i + 1 < argc) {
        *out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--header") {
      s.header = header_given = true;
    } else if (a == "--no-header") {
      s.header = false;
      header_given = true;
    } else if (a == "--raw") {
      s.raw = true;
    } else if (a == "--timer") {
      s.timer = true;
    } else if (a == "--no-extension") {
      load = false;
    } else if (value("--mode", &v)) {
      if (!ParseMode(v, &s.mode))
        return Usage("--mode takes table, csv, tsv, json, line, markdown or "
                     "box, not '" + v + "'");
    } else if (value("--interrupt-after", &v)) {
      interrupt_after = std::atoi(v.c_str());
    } else if (value("--database", &database)) {
    } else if (value("-f", &file)) {
    } else if (value("-c", &v)) {
      sql.push_back(v);
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("unknown option '" + a + "'");
    } else if (sql.empty() && extension.empty() &&
               EndsWith(a, ".duckdb_extension")) {
      extension = a;
    } else {
      sql.push_back(a);
    }
  }
  if (!header_given && s.mode == Mode::kTsv) s.header = false;
  if (load && extension.empty()) extension = DefaultExtension();

  duckdb_config config;
  duckdb_create_config(&config);
  duckdb_set_config(config, "allow_unsigned_extensions", "true");
  duckdb_database db;
  char* error = nullptr;
  if (duckdb_open_ext(database.empty() ? nullptr : database.c_str(), &db,
                      config, &error) == DuckDBError) {
    std::fprintf(stderr, "uriscan-duckdb: %s\n", error ? error : "open");
    duckdb_free(error);
    return 1;
  }
  duckdb_destroy_config(&config);
  duckdb_connection c;
  if (duckdb_connect(db, &c) == DuckDBError) return 1;
  Shell shell(c, s);
  Interrupter interrupter(c, load ? extension : std::string());
  if (interrupt_after >= 0) interrupter.After(interrupt_after);
  bool ok = true;
  if (load && !extension.empty()) {
    std::string quoted;
    for (const char ch : extension) quoted += ch == '\'' ? "''" : std::string(1, ch);
    shell.set_timer(false);  // the user's statements are timed, not this
    ok = shell.Run("LOAD '" + quoted + "'");
    shell.set_timer(s.timer);
  }
  for (size_t i = 0; ok && !shell.quit() && i < sql.size(); ++i)
    ok = shell.Argument(sql[i]);
  if (ok && !shell.quit() && !file.empty()) {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "uriscan-duckdb: cannot read %s: %s\n",
                   file.c_str(), std::strerror(errno));
      ok = false;
    } else {
      ok = shell.RunStream(in, false);
    }
  }
  if (ok && !shell.quit() && sql.empty() && file.empty())
    ok = shell.RunStream(std::cin, isatty(0) && isatty(1));
  std::fflush(stdout);
  duckdb_disconnect(&c);
  duckdb_close(&db);
  return ok && !shell.failed() ? 0 : 1;
}
