// SPDX-License-Identifier: MIT
// The TSV reader of tests/data, with its escapes.
#include "tests/support/tsv.h"

#include <fstream>
#include <utility>

#include "gtest/gtest.h"

namespace uriscan {
namespace test_data {
namespace {

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Unescapes one field; false on an unknown or truncated escape.
bool Unescape(const std::string& raw, Field* out) {
  if (raw == "\\N") {
    *out = std::nullopt;
    return true;
  }
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      s.push_back(raw[i]);
      continue;
    }
    if (++i == raw.size()) return false;
    switch (raw[i]) {
      case '\\': s.push_back('\\'); break;
      case 't': s.push_back('\t'); break;
      case 'r': s.push_back('\r'); break;
      case 'n': s.push_back('\n'); break;
      case 'x': {
        if (i + 2 >= raw.size()) return false;
        const int hi = Hex(raw[i + 1]), lo = Hex(raw[i + 2]);
        if (hi < 0 || lo < 0) return false;
        s.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      default: return false;
    }
  }
  *out = std::move(s);
  return true;
}

}  // namespace

std::vector<Row> ReadCases(const std::string& name, size_t columns) {
  std::vector<Row> rows;
  const std::string path = std::string(URISCAN_TEST_DATA_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return rows;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    Row row;
    row.line = number;
    std::string raw;
    size_t start = 0;
    while (true) {
      const size_t tab = line.find('\t', start);
      raw = line.substr(start, tab == std::string::npos ? std::string::npos
                                                        : tab - start);
      Field f;
      if (!Unescape(raw, &f)) {
        ADD_FAILURE() << path << ":" << number << ": bad escape in " << raw;
      }
      row.fields.push_back(std::move(f));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (row.fields.size() != columns) {
      ADD_FAILURE() << path << ":" << number << ": " << row.fields.size()
                    << " fields, want " << columns;
      continue;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace test_data
}  // namespace uriscan
