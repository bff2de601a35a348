// SPDX-License-Identifier: MIT
// One ada version's can_parse behind a C function of its own name
// (URISCAN_ADA_PEER_FUNCTION), built as a shared library that hides ada's
// symbols (bench/ada/CMakeLists.txt). Compiled as C++20, as ada's headers
// need; the bench calls it from C++17 code.
#include <ada.h>

#include <cstddef>
#include <string_view>

extern "C" __attribute__((visibility("default"))) bool
URISCAN_ADA_PEER_FUNCTION(const char* data, size_t size) {
  return ada::can_parse(std::string_view(data, size));
}
