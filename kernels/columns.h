// SPDX-License-Identifier: MIT
// Internal, not installed: the boundary columns the kernels write and the
// parser's ComponentSpans holds, in order. The kernels know bytes, masks and
// these columns, not the public API; src/parse/spans.cc checks that this
// list is the public URISCAN_SPAN_BOUNDARIES (uriscan/spans.h).
#ifndef URISCAN_KERNELS_COLUMNS_H_
#define URISCAN_KERNELS_COLUMNS_H_

#include <cstdint>

#define URISCAN_BOUNDARY_COLUMNS(X)                                        \
  X(uri_begin) X(scheme_end) X(authority_begin) X(userinfo_end)           \
  X(host_begin) X(host_end) X(port_begin) X(path_begin) X(path_end)       \
  X(query_begin) X(fragment_begin) X(uri_end)

namespace uriscan {
namespace kernels {

// Raw column pointers of a scan's spans, each with room for the rows being
// written.
struct SpanColumns {
#define URISCAN_COLUMN_POINTER(name) uint32_t* name;
  URISCAN_BOUNDARY_COLUMNS(URISCAN_COLUMN_POINTER)
#undef URISCAN_COLUMN_POINTER
  uint16_t* flags;
  uint8_t* error_kind;
  uint32_t* error_offset;
};

}  // namespace kernels
}  // namespace uriscan

#endif  // URISCAN_KERNELS_COLUMNS_H_
