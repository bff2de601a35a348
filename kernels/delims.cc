// SPDX-License-Identifier: MIT
// Query splitting and decoding: the rows that have a query from a SIMD scan
// of the flags column, '&' and '=' bitmasks over each query's own bytes
// (never over the paths between them), and copying runs of bytes that need
// no decoding ('%', and '+' for form data) a vector at a time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/delims.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/utf8.h"
#include "kernels/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// Bits of '&' and '=' among the 64 bytes at p, in registers.
HWY_INLINE void DelimBits(const uint8_t* HWY_RESTRICT p, uint64_t* amp,
                          uint64_t* eq) {
  const hn::CappedTag<uint8_t, 64> d;  // SVE vectors may be longer
  const size_t n = hn::Lanes(d);
  const auto a = hn::Set(d, uint8_t{'&'});
  const auto e = hn::Set(d, uint8_t{'='});
  uint64_t amp_bits = 0, eq_bits = 0;
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    amp_bits |= MaskBits(d, hn::Eq(v, a)) << i;
    eq_bits |= MaskBits(d, hn::Eq(v, e)) << i;
  }
  *amp = amp_bits;
  *eq = eq_bits;
}

HWY_INLINE int HexValue(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte of the escape at in[at] ("%HH" with at + 2 < size), or -1.
HWY_INLINE int EscapeAt(const uint8_t* in, size_t size, size_t at) {
  if (at + 2 >= size || in[at] != '%') return -1;
  const int hi = HexValue(in[at + 1]), lo = HexValue(in[at + 2]);
  return hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
}

// How many escapes from in[0] (whose byte is `lead`, 0x80 or more) spell
// one well-formed UTF-8 character (RFC 3629, section 4), their bytes
// written to out; 0 when they spell none.
HWY_INLINE size_t Utf8Escapes(const uint8_t* in, size_t size, uint8_t lead,
                              uint8_t* out) {
  const Utf8Lead shape = Utf8LeadOf(lead);
  if (shape.length == 0) return 0;
  for (size_t k = 1; k < shape.length; ++k) {
    const int b = EscapeAt(in, size, 3 * k);
    if (b < (k == 1 ? shape.second_low : 0x80) ||
        b > (k == 1 ? shape.second_high : 0xBF))
      return 0;
    out[k] = static_cast<uint8_t>(b);
  }
  out[0] = lead;
  return shape.length;
}

// Decodes in[0, size) into out. Bytes up to in + in_room may be read and up
// to out + out_room written (in_room >= size, out_room >= size): where a
// whole vector fits in both, even a short span is one load, one compare
// and one store; the bytes stored past the span are scratch for the caller.
HWY_INLINE size_t DecodeOne(const uint8_t* HWY_RESTRICT in, size_t size,
                            size_t in_room, uint8_t* HWY_RESTRICT out,
                            size_t out_room, uint32_t how) {
  const bool form = (how & kernels::kDecodeForm) != 0;
  const bool utf8 = (how & kernels::kDecodeUtf8) != 0;
  const hn::CappedTag<uint8_t, 64> d;  // kernels::kDecodePad bytes at most
  const size_t n = hn::Lanes(d);
  const auto pct = hn::Set(d, uint8_t{'%'});
  // Without form decoding '+' is looked for as '%' (no byte matches twice).
  const auto plus = hn::Set(d, form ? uint8_t{'+'} : uint8_t{'%'});
  size_t i = 0, o = 0;
  while (i < size) {
    // Whole vectors while they hold nothing to decode.
    while (i + n <= in_room && o + n <= out_room) {
      const auto v = hn::LoadU(d, in + i);
      // A byte equal to either: the smaller XOR is zero. (ORing the two
      // compare masks gave an empty mask on SVE_256 with GCC 12 at -O2.)
      const auto special =
          hn::Eq(hn::Min(hn::Xor(v, pct), hn::Xor(v, plus)), hn::Zero(d));
      hn::StoreU(v, d, out + o);
      const intptr_t first = hn::FindFirstTrue(d, special);
      const size_t plain = first >= 0 ? static_cast<size_t>(first) : n;
      if (plain >= size - i) return o + (size - i);  // the span ends first
      i += plain;
      o += plain;
      if (first >= 0) break;
    }
    // One byte: a special one after a vector, or where no vector fits.
    const uint8_t c = in[i];
    const int v = c == '%' ? EscapeAt(in, size, i) : -1;
    if (v > 0 && v < 0x80) {
      out[o++] = static_cast<uint8_t>(v);
      i += 3;
      continue;
    }
    if (v >= 0x80) {
      // A character's escapes decoded together, or (kDecodeUtf8) none.
      const size_t bytes =
          utf8 ? Utf8Escapes(in + i, size - i, static_cast<uint8_t>(v),
                             out + o)
               : 1;
      if (!utf8) out[o] = static_cast<uint8_t>(v);
      if (bytes > 0) {
        o += bytes;
        i += 3 * bytes;
        continue;
      }
    }
    if (v >= 0) {  // "%00", or an escape of no UTF-8 character: as written
      out[o++] = in[i++];
      out[o++] = in[i++];
      out[o++] = in[i++];
      continue;
    }
    out[o++] = (form && c == '+') ? uint8_t{' '} : c;
    ++i;
  }
  return o;
}

}  // namespace

size_t RowsWithFlag(const uint16_t* HWY_RESTRICT flags, size_t count,
                    uint16_t flag, uint32_t* HWY_RESTRICT rows) {
  const hn::CappedTag<uint16_t, 64> d;
  const size_t n = hn::Lanes(d);
  const auto bit = hn::Set(d, flag);
  size_t found = 0, r = 0;
  for (; r + 64 <= count; r += 64) {
    uint64_t bits = 0;
    for (size_t i = 0; i < 64; i += n) {
      const auto v = hn::And(hn::LoadU(d, flags + r + i), bit);
      bits |= MaskBits(d, hn::Eq(v, bit)) << i;
    }
    for (; bits != 0; bits &= bits - 1)
      rows[found++] = static_cast<uint32_t>(r + hwy::Num0BitsBelowLS1Bit_Nonzero64(bits));
  }
  for (; r < count; ++r)
    if (flags[r] & flag) rows[found++] = static_cast<uint32_t>(r);
  return found;
}

size_t SplitQueries(const uint8_t* HWY_RESTRICT data, size_t limit,
                    const uint32_t* HWY_RESTRICT row,
                    const uint32_t* HWY_RESTRICT begin,
                    const uint32_t* HWY_RESTRICT end, size_t count,
                    uint32_t* HWY_RESTRICT out_row,
                    uint32_t* HWY_RESTRICT name_begin,
                    uint32_t* HWY_RESTRICT name_end,
                    uint32_t* HWY_RESTRICT value_begin,
                    uint32_t* HWY_RESTRICT value_end) {
  size_t found = 0;
  constexpr uint32_t kNone = ~uint32_t{0};
  // The field [field, stop) with its first '=' at eq (kNone: none).
  const auto emit = [&](uint32_t r, uint32_t field, uint32_t eq, uint32_t stop) {
    out_row[found] = r;
    name_begin[found] = field;
    name_end[found] = eq == kNone ? stop : eq;
    value_begin[found] = eq == kNone ? stop : eq + 1;
    value_end[found] = stop;
    ++found;
  };
  for (size_t k = 0; k < count; ++k) {
    const uint32_t q = begin[k], qe = end[k];
    uint32_t field = q, eq = kNone;
    for (uint32_t b = q; b < qe; b += 64) {
      uint64_t amp, eqs;
      if (b + size_t{64} <= limit) {
        DelimBits(data + b, &amp, &eqs);  // may read past qe, never past limit
      } else {  // the last bytes of the buffer through a zeroed copy
        HWY_ALIGN uint8_t tail[64] = {0};
        std::memcpy(tail, data + b, qe - b);
        DelimBits(tail, &amp, &eqs);
      }
      if (qe - b < 64) {
        const uint64_t mine = (uint64_t{1} << (qe - b)) - 1;
        amp &= mine;
        eqs &= mine;
      }
      for (uint64_t events = amp | eqs; events != 0; events &= events - 1) {
        const uint32_t bit = static_cast<uint32_t>(
            hwy::Num0BitsBelowLS1Bit_Nonzero64(events));
        const uint32_t at = b + bit;
        if ((amp >> bit) & 1) {
          if (at > field) emit(row[k], field, eq, at);
          field = at + 1;
          eq = kNone;
        } else if (eq == kNone) {
          eq = at;
        }
      }
    }
    if (qe > field) emit(row[k], field, eq, qe);
  }
  return found;
}

size_t DecodeRun(const uint8_t* HWY_RESTRICT in, size_t size,
                 uint8_t* HWY_RESTRICT out, uint32_t how) {
  return DecodeOne(in, size, size, out, size, how);
}

void DecodeSpans(const uint8_t* HWY_RESTRICT data, size_t limit,
                 const uint32_t* HWY_RESTRICT begin,
                 const uint32_t* HWY_RESTRICT end, size_t count, uint32_t how,
                 uint8_t* HWY_RESTRICT out, size_t out_room,
                 uint32_t* HWY_RESTRICT out_offsets) {
  size_t o = 0;
  out_offsets[0] = 0;
  for (size_t k = 0; k < count; ++k) {
    o += DecodeOne(data + begin[k], end[k] - begin[k], limit - begin[k],
                   out + o, out_room - o, how);
    out_offsets[k + 1] = static_cast<uint32_t>(o);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(RowsWithFlag);
HWY_EXPORT(SplitQueries);
HWY_EXPORT(DecodeRun);
HWY_EXPORT(DecodeSpans);
}  // namespace

namespace kernels {
size_t RowsWithFlag(const uint16_t* flags, size_t count, uint16_t flag,
                    uint32_t* rows) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(RowsWithFlag)(flags, count, flag, rows);
}
size_t SplitQueries(const uint8_t* data, size_t limit, const uint32_t* row,
                    const uint32_t* begin, const uint32_t* end, size_t count,
                    uint32_t* out_row, uint32_t* name_begin,
                    uint32_t* name_end, uint32_t* value_begin,
                    uint32_t* value_end) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(SplitQueries)(data, limit, row, begin, end,
                                            count, out_row, name_begin,
                                            name_end, value_begin, value_end);
}
size_t DecodeRun(const uint8_t* in, size_t size, uint8_t* out, uint32_t how) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(DecodeRun)(in, size, out, how);
}
void DecodeSpans(const uint8_t* data, size_t limit, const uint32_t* begin,
                 const uint32_t* end, size_t count, uint32_t how, uint8_t* out,
                 size_t out_room, uint32_t* out_offsets) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(DecodeSpans)(data, limit, begin, end, count, how, out,
                                    out_room, out_offsets);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
