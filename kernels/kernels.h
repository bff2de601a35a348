// SPDX-License-Identifier: MIT
// Internal, not installed: the dispatching wrappers of the Highway kernels.
#ifndef URISCAN_KERNELS_KERNELS_H_
#define URISCAN_KERNELS_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/columns.h"

namespace uriscan {
namespace kernels {

// Row values of the error-kind column that the kernels leave for the
// caller: the fast path did not settle this URI, and the scalar parser must
// fill exactly those rows (uri_begin and uri_end are already set).
inline constexpr uint8_t kNeedsScalar = 0xFF;

// The byte classes of stage 1, one bitmask each (bit i = byte i of a 64-byte
// block). Stage 1 without GFNI is bound by moving masks out of vector
// registers, so most classes hold several byte sets, told apart by the
// others (a few operations per 64 bytes in stage 2):
//   ':'     = kColonSlash & kDigitPercentColonHash
//   '/'     = kColonSlash & ~kDigitPercentColonHash
//   '?' '#' = kQuestionHashAt & ~kUpperDotAt (what ends a path)
//   '#'     = kQuestionHashAt & kDigitPercentColonHash
//   '@'     = kQuestionHashAt & kUpperDotAt
//   '%'     = kDigitPercentColonHash & kNotAlnum
//               & ~(kColonSlash | kQuestionHashAt)
//   DIGIT   = kDigitPercentColonHash & ~kNotAlnum
//   '.'     = kUpperDotAt & kNotAlnum & ~kQuestionHashAt
//   'A'-'Z' = kUpperDotAt & ~kNotAlnum
enum Class : int {
  kStop,                  // the fast path stops here: a byte allowed nowhere
                          // (CTL, SP, " < > \ ^ ` { | }, DEL, >= 0x80), '['
                          // or ']' (IP literals go to the scalar parser), or
                          // a '%' without two HEXDIG
  kColonSlash,            // ':' '/'
  kQuestionHashAt,        // '?' '#' '@'
  kDigitPercentColonHash, // DIGIT '%' ':' '#'
  kUpperDotAt,            // 'A'-'Z' '.' '@'
  kNotAlnum,              // not ALPHA / DIGIT: in a scheme, its "+" "-" "."
                          // too send the row to the scalar parser (they are
                          // rare)
  kNewline,               // '\n'
  kNumClasses
};

// Bytes of input a window of stage 1 covers: its masks (7 words per 64
// bytes, about 21 KiB) stay in L1/L2 while stage 2 reads them. 24 KiB
// measured 2-5 % faster than 12 (fewer part-filled stages of stage 2,
// fewer passes over each window's rows left), 32 no faster again.
inline constexpr size_t kWindowBytes = 24 * 1024;

// Masks of one stage-1 window are stored class by class: class k's word for
// block j is masks[k * kMaskStride + j]. The blocks after the window's last
// one (kPadBlocks of them) are zero, so a 512-byte row window (8 words and
// the next) never reads past the scratch.
inline constexpr size_t kPadBlocks = 9;
inline constexpr size_t kMaskStride = kWindowBytes / 64 + 1 + kPadBlocks;

// Caller-owned scratch of the scanning kernels (they never allocate).
struct ScanScratch {
  uint64_t* masks;       // kScratchMaskWords words
  uint32_t* line_begin;  // each of these: kScratchRowEntries entries
  uint32_t* line_end;
  uint32_t* rows;        // rows left for a wider window, and their bounds
  uint32_t* row_begin;
  uint32_t* row_end;
};
inline constexpr size_t kScratchMaskWords = kMaskStride * kNumClasses;
inline constexpr size_t kScratchRowEntries = kWindowBytes + 8;

// Fills every column for the `count` references [offsets[i], offsets[i+1])
// of `data`. Reads no byte at or past data + offsets[count]. Rows it cannot
// settle get error_kind = kNeedsScalar and must be re-parsed by the caller.
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const ScanScratch& scratch, const SpanColumns& cols);

// Scans the lines of data[begin, size) in place, one row per line as
// BatchFromLines() splits them, into rows row0, row0 + 1, ... of `cols`,
// stopping before row `capacity`. Offsets are from `data`. Returns where
// the next line starts (size when all are done); *rows_out is the next free
// row. size must be below 4 GiB.
size_t ScanLines(const uint8_t* data, size_t size, size_t begin,
                 const ScanScratch& scratch, const SpanColumns& cols,
                 size_t row0, size_t capacity, size_t* rows_out);

// Stage 1 alone over a whole buffer, window after window as the scan runs
// it, into `masks` (kScratchMaskWords words; the last window's masks stay).
void Classify(const uint8_t* data, size_t size, uint64_t* masks);

// Stage 1 over a whole buffer: adds to counts[k] how many bytes fall in
// class k.
void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]);

// Applies the URISCAN_TARGET environment variable (see RequestedTarget()),
// once, before the first dispatch: every wrapper below calls it.
void ApplyTargetRequest();
// The Highway target the kernels dispatch to, by Highway's name; and the
// target URISCAN_TARGET asked for (nullptr when unset), *honoured saying
// whether it took effect. The public DispatchedTargetName() and
// RequestedTarget() (uriscan/spans.h) give these.
const char* DispatchedTargetName();
const char* RequestedTarget(bool* honoured);

// Newline splitting: bit i of words[i / 64] is set when data[i] == '\n'.
// `words` has room for (size + 63) / 64 words; nothing past `size` is read.
// Returns how many bits are set.
size_t NewlineMasks(const uint8_t* data, size_t size, uint64_t* words);

// Where a split of lines stands between two pieces of its input: the
// bytes before line_begin are settled, `written` of them written.
struct LineCopy {
  size_t line_begin = 0;
  size_t written = 0;
};
// The lines that end in in[piece, piece + n) (pieces are whole 64-byte
// blocks but the last), copied back to back to out + state->written, a
// "\r" just before the "\n" dropped; each line's end in `out` goes to
// ends[] (room for n). The bytes of the line still open at piece + n may be
// written too (state->line_begin says). Whole 64-byte pieces are stored, so
// `out` needs 64 bytes of room past the lines. Reads nothing past
// in + size. Returns how many ends.
size_t SplitLines(const uint8_t* in, size_t size, size_t piece, size_t n,
                  uint8_t* out, uint32_t* ends, LineCopy* state);


// Query splitting (kernels/delims.cc). The rows among flags[0, count) with
// `flag` (one bit) set, in order, into rows (room for count); returns how
// many.
size_t RowsWithFlag(const uint16_t* flags, size_t count, uint16_t flag,
                    uint32_t* rows);
// Splits the queries [begin[k], end[k]) of data, k < count, into parameters
// (analytics.h: '&' between fields, a field's first '=' between name and
// value, empty fields skipped), one output row each with row[k] as its row;
// returns how many. Each output has room for the sum of (end - begin + 1) / 2
// over the queries. '&' and '=' bits are made over each query's bytes alone,
// 64 at a time; bytes of data up to `limit` may be read past a query's end.
size_t SplitQueries(const uint8_t* data, size_t limit, const uint32_t* row,
                    const uint32_t* begin, const uint32_t* end, size_t count,
                    uint32_t* out_row, uint32_t* name_begin,
                    uint32_t* name_end, uint32_t* value_begin,
                    uint32_t* value_end);

// How DecodeRun and DecodeSpans decode, or-ed together: kDecodeForm makes a
// '+' a space first (application/x-www-form-urlencoded); kDecodeUtf8 keeps
// an escape whose byte is not part of a well-formed UTF-8 character
// (RFC 3629) spelled out in escapes as written. "%00" always stays.
inline constexpr uint32_t kDecodeForm = 1, kDecodeUtf8 = 2;

// Decodes in[0, size) into out (room for `size` bytes): "%HH" becomes that
// byte (a '%' without two HEXDIG stays; so do "%00" and, with kDecodeUtf8,
// escapes of no UTF-8 character), '+' as `how` says. Runs without '%' or
// '+' are copied a vector at a time. Returns the bytes written.
size_t DecodeRun(const uint8_t* in, size_t size, uint8_t* out, uint32_t how);
// The widest vector DecodeSpans stores: `out` needs this many bytes of room
// past the decoded text.
constexpr size_t kDecodePad = 64;
// DecodeRun over the spans [begin[k], end[k]) of data, one after the other
// into out (out_room bytes: the spans' total size plus kDecodePad); decoded
// span k is [out_offsets[k], out_offsets[k + 1]) (count + 1 entries). Bytes
// of data up to `limit` (at least every end[k]) may be read, so that a short
// span is one vector load and store.
void DecodeSpans(const uint8_t* data, size_t limit, const uint32_t* begin,
                 const uint32_t* end, size_t count, uint32_t how, uint8_t* out,
                 size_t out_room, uint32_t* out_offsets);

}  // namespace kernels
}  // namespace uriscan

#endif  // URISCAN_KERNELS_KERNELS_H_
