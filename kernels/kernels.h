// SPDX-License-Identifier: MIT
// Internal, not installed: the dispatching wrappers of the Highway kernels.
#ifndef URISCAN_KERNELS_KERNELS_H_
#define URISCAN_KERNELS_KERNELS_H_

#include <cstddef>
#include <cstdint>

namespace uriscan {
namespace kernels {

// Row value of the error-kind column meaning "the fast path did not settle
// this URI": the caller runs the scalar parser on exactly those rows.
inline constexpr uint8_t kNeedsScalar = 0xFF;

// Raw column pointers of a ComponentSpans, each with room for `count` rows.
struct SpanColumns {
  uint32_t *uri_begin, *scheme_end, *authority_begin, *userinfo_end,
      *host_begin, *host_end, *port_begin, *path_begin, *path_end,
      *query_begin, *fragment_begin, *uri_end;
  uint16_t* flags;
  uint8_t* error_kind;
  uint32_t* error_offset;
};

// Fills every column for the `count` references [offsets[i], offsets[i+1])
// of `data`. Reads no byte at or past data + offsets[count]. Rows it cannot
// settle get error_kind = kNeedsScalar and must be re-parsed by the caller.
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const SpanColumns& cols);

// The classification alone over a whole buffer (the floor for ScanBatch):
// returns how many bytes are gen-delims ": / ? #".
uint64_t CountGenDelims(const uint8_t* data, size_t size);

}  // namespace kernels
}  // namespace uriscan

#endif  // URISCAN_KERNELS_KERNELS_H_
