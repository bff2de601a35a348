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

// The byte classes of the classification pass, one bitmask each. Masks are
// stored block by block: kNumClasses uint64_t words per 64 input bytes.
enum Class : int {
  kColon,      // ':'
  kSlash,      // '/'
  kQuestion,   // '?'
  kHash,       // '#'
  kAt,         // '@'
  kPercent,    // '%'
  kHex,        // HEXDIG
  kDigit,      // DIGIT
  kDot,        // '.'
  kUpper,      // 'A'-'Z'
  kNotScheme,  // not ALPHA / DIGIT / "+" / "-" / "."
  kReject,     // allowed nowhere (CTL, SP, " < > \ ^ ` { | }, DEL, >= 0x80)
               // or '[' ']': rows holding one go to the scalar parser
  kNumClasses
};

// Words of mask scratch that ScanBatch needs for `bytes` input bytes.
inline size_t MaskWords(size_t bytes) { return (bytes + 63) / 64 * kNumClasses; }

// Fills every column for the `count` references [offsets[i], offsets[i+1])
// of `data`. Reads no byte at or past data + offsets[count]. Rows it cannot
// settle get error_kind = kNeedsScalar and must be re-parsed by the caller.
// `masks` is caller-owned scratch of MaskWords(offsets[count]) words.
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               uint64_t* masks, const SpanColumns& cols);

// The classification alone over a whole buffer (the floor for ScanBatch):
// adds to counts[k] how many bytes fall in class k.
void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]);

// Newline splitting: bit i of words[i / 64] is set when data[i] == '\n'.
// `words` has room for (size + 63) / 64 words; nothing past `size` is read.
void NewlineMasks(const uint8_t* data, size_t size, uint64_t* words);

}  // namespace kernels
}  // namespace uriscan

#endif  // URISCAN_KERNELS_KERNELS_H_
