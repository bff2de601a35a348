// SPDX-License-Identifier: MIT
// Whole-file helpers for the tests that run the command.
#ifndef URISCAN_TESTS_SUPPORT_FILES_H_
#define URISCAN_TESTS_SUPPORT_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace uriscan {
namespace test_files {

// The bytes of the file at `path` ("" when it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces the file at `path` with `bytes`.
inline void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace test_files
}  // namespace uriscan

#endif  // URISCAN_TESTS_SUPPORT_FILES_H_
