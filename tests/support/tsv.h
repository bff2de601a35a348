// SPDX-License-Identifier: MIT
// Reads the TSV case files of tests/data (format in tests/data/README.md).
#ifndef URISCAN_TESTS_SUPPORT_TSV_H_
#define URISCAN_TESTS_SUPPORT_TSV_H_

#include <optional>
#include <string>
#include <vector>

namespace uriscan {
namespace test_data {

// One field: nullopt for "\N" (undefined), else the unescaped bytes.
using Field = std::optional<std::string>;

struct Row {
  int line = 0;  // 1-based, for failure messages
  std::vector<Field> fields;
  // Field i, which must be defined.
  const std::string& operator[](size_t i) const { return *fields.at(i); }
};

// Every case of tests/data/`name`, each with exactly `columns` fields.
// Fails the calling test (and returns what it read) when the file is
// missing or a line is malformed.
std::vector<Row> ReadCases(const std::string& name, size_t columns);

}  // namespace test_data
}  // namespace uriscan

#endif  // URISCAN_TESTS_SUPPORT_TSV_H_
