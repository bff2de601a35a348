// SPDX-License-Identifier: MIT
// Newline splitting: one bit per input byte that is "\n", 64 bytes per word;
// and the lines between them copied back to back (BatchFromLines).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/lines.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/highway.h"
#include "kernels/classify-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// Bit i of the result is set when p[i] == '\n', for the 64 bytes at p.
HWY_INLINE uint64_t NewlineBits(const uint8_t* HWY_RESTRICT p) {
  const hn::CappedTag<uint8_t, 64> d;  // SVE vectors may be longer
  const size_t n = hn::Lanes(d);
  const auto nl = hn::Set(d, uint8_t{'\n'});
  uint64_t word = 0;
  for (size_t i = 0; i < 64; i += n)
    PutBits(d, hn::Eq(hn::LoadU(d, p + i), nl), i, &word);
  return word;
}

}  // namespace

size_t NewlineMasks(const uint8_t* data, size_t size, uint64_t* words) {
  size_t i = 0, count = 0;
  for (; i + 64 <= size; i += 64) {
    // This pass is often the first to touch a mapped file's bytes (the
    // command's line count per chunk): a prefetch a page ahead saved 2-3 %
    // of `validate --threads=2`. (A hint: nothing is read past the end.)
    __builtin_prefetch(data + i + 4096);
    const uint64_t word = NewlineBits(data + i);
    count += hwy::PopCount(word);
    *words++ = word;
  }
  if (i < size) {  // the tail through a zeroed copy: nothing past size is read
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, data + i, size - i);
    *words = NewlineBits(tail);
    count += hwy::PopCount(*words);
  }
  return count;
}

// Copies the n bytes at src to dst in whole 64-byte pieces (at least one),
// a vector at a time: reads and writes up to 63 bytes past n.
HWY_INLINE void CopyPieces(uint8_t* HWY_RESTRICT dst,
                           const uint8_t* HWY_RESTRICT src, size_t n) {
  const hn::CappedTag<uint8_t, 64> d;
  const size_t lanes = hn::Lanes(d);
  size_t k = 0;
  do {  // most lines are shorter than 64 bytes: one piece, no loop
#if HWY_TARGET == HWY_SCALAR
    (void)lanes;
    std::memcpy(dst + k, src + k, 64);
#else
    for (size_t i = 0; i < 64; i += lanes)
      hn::StoreU(hn::LoadU(d, src + k + i), d, dst + k + i);
#endif
    k += 64;
  } while (k < n);
}

#if URISCAN_BYTE_COMPRESS
// The 64 bytes at `block` but those dropped (the "\n"s, the "\r"s just
// before one, the bytes past the input: `drop`) to out + *written, by
// VBMI2's byte compress; the ends of the lines whose "\n" bits are `nl` to
// *ends.
HWY_INLINE void CompressBlock(const uint8_t* HWY_RESTRICT block, uint64_t nl,
                              uint64_t drop, uint8_t* HWY_RESTRICT out,
                              size_t* written, uint32_t** ends) {
  const hn::Full512<uint8_t> d;
  const uint64_t keep = ~drop;
  const auto v = hn::LoadU(d, block);
  hn::StoreU(CompressBytes(d, v, keep), d, out + *written);
  for (uint64_t bits = nl; bits != 0; bits &= bits - 1) {
    const uint64_t below = (bits & (0 - bits)) - 1;  // the bits below it
    *(*ends)++ = static_cast<uint32_t>(*written + hwy::PopCount(keep & below));
  }
  *written += hwy::PopCount(keep);
}

// A block at a time, however many lines it holds: one compress and store.
size_t SplitLines(const uint8_t* in, size_t size, size_t piece, size_t n,
                  uint8_t* out, uint32_t* ends, kernels::LineCopy* state) {
  const hn::Full512<uint8_t> d;
  size_t written = state->written;
  uint32_t* const ends0 = ends;
  const uint8_t* const end = in + piece + n;
  // A "\r" just before a "\n" is dropped: the next block's first byte
  // settles the block's last.
  const uint64_t after_piece = piece + n < size && in[piece + n] == '\n';
  auto bits = [&](const uint8_t* block, uint8_t c) -> uint64_t {
    return MaskBits(d, hn::Eq(hn::LoadU(d, block), hn::Set(d, c)));
  };
  const uint8_t* p = in + piece;
  if (p + 64 <= end) {
    uint64_t nl = bits(p, '\n');
    for (; p + 64 <= end; p += 64) {
      // Past L2 (a 2 MB text here), the input 2 KB ahead is asked for:
      // 10 % off. (Hints: nothing is read past the end.)
      __builtin_prefetch(p + 2048);
      const uint64_t next_nl =
          p + 128 <= end ? bits(p + 64, '\n')
                         : (p + 64 < end ? p[64] == '\n' : after_piece);
      const uint64_t drop =
          nl | (bits(p, '\r') & ((nl >> 1) | (next_nl << 63)));
      CompressBlock(p, nl, drop, out, &written, &ends);
      nl = next_nl;
    }
  }
  if (p < end) {  // the input's last, partial block, through a zeroed copy
    const size_t rest = static_cast<size_t>(end - p);
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, p, rest);
    const uint64_t nl = bits(tail, '\n');
    const uint64_t drop = nl | (bits(tail, '\r') & (nl >> 1)) |
                          (~uint64_t{0} << rest);
    CompressBlock(tail, nl, drop, out, &written, &ends);
  }
  state->line_begin = piece + n;
  state->written = written;
  return static_cast<size_t>(ends - ends0);
}
#else
// The lines whose "\n"s are the bits of `word`, in the 64 bytes at in + at,
// copied back to back to out from out + *written: each line from in +
// *begin to its "\n", a "\r" just before the "\n" dropped (the byte before
// a line's first is a "\n", never a "\r"), its end in out to *ends. With
// kInside the block is neither the input's first nor within 128 bytes of its
// end, so every "\n" has a byte before it and a line's whole-piece copy
// reads before at + 127 (at most 63 bytes past the line's end): the checks
// each line makes otherwise are made once a block (on kasztp under AVX2, 59
// instructions a line became 53).
template <bool kInside>
HWY_INLINE void CopyLines(const uint8_t* in, size_t size, size_t at,
                          uint64_t word, uint8_t* out, size_t* begin,
                          size_t* written, uint32_t** ends) {
  const uint8_t* line = in + *begin;
  uint8_t* to = out + *written;
  uint32_t* end = *ends;
  for (; word != 0; word &= word - 1) {
    const uint8_t* nl = in + at + hwy::Num0BitsBelowLS1Bit_Nonzero64(word);
    const bool cr = (kInside || nl != in) && nl[-1] == '\r';
    const size_t len = static_cast<size_t>(nl - cr - line);
    if (kInside || static_cast<size_t>(in + size - line) >= len + 64) {
      CopyPieces(to, line, len);
    } else {
      std::memcpy(to, line, len);
    }
    to += len;
    *end++ = static_cast<uint32_t>(to - out);
    line = nl + 1;
  }
  *begin = static_cast<size_t>(line - in);
  *written = static_cast<size_t>(to - out);
  *ends = end;
}

// A line at a time: a vector copy of whole 64-byte pieces each.
size_t SplitLines(const uint8_t* in, size_t size, size_t piece, size_t n,
                  uint8_t* out, uint32_t* ends, kernels::LineCopy* state) {
  size_t begin = state->line_begin, written = state->written;
  uint32_t* const ends0 = ends;
  for (size_t at = piece; at < piece + n; at += 64) {
    // Past L2, the input 2 KB ahead and the output 1 KB ahead (for
    // writing) are asked for: 7 % off; either alone did nothing. (On the
    // compress path above the output's hint made long lines slower.)
    __builtin_prefetch(out + written + 1024, 1);
    __builtin_prefetch(in + at + 2048);
    uint64_t word;
    if (at + 64 <= piece + n) {
      word = NewlineBits(in + at);
    } else {  // the input's last, partial block, through a zeroed copy
      HWY_ALIGN uint8_t tail[64] = {0};
      std::memcpy(tail, in + at, piece + n - at);
      word = NewlineBits(tail);
    }
    if (HWY_LIKELY(at != 0 && at + 128 <= size)) {
      CopyLines<true>(in, size, at, word, out, &begin, &written, &ends);
    } else {
      CopyLines<false>(in, size, at, word, out, &begin, &written, &ends);
    }
  }
  state->line_begin = begin;
  state->written = written;
  return static_cast<size_t>(ends - ends0);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(NewlineMasks);
HWY_EXPORT(SplitLines);
}  // namespace

namespace kernels {
size_t NewlineMasks(const uint8_t* data, size_t size, uint64_t* words) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(NewlineMasks)(data, size, words);
}
size_t SplitLines(const uint8_t* in, size_t size, size_t piece, size_t n,
                  uint8_t* out, uint32_t* ends, LineCopy* state) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(SplitLines)(in, size, piece, n, out, ends, state);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
