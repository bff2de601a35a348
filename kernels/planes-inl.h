// SPDX-License-Identifier: MIT
// Stage 1 on AVX-512 with VBMI and GFNI (the AVX3_DL target): eight blocks
// at a time, each byte's classes looked up as two class bytes (one
// vpermi2b each on a 128-entry table), and the class bytes turned into
// class masks by bit-matrix transposes (one vgf2p8affineqb per block) and
// lane shuffles, instead of one compare and one mask move per class.
// Included by classify-inl.h for that target only.
#if defined(URISCAN_KERNELS_PLANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_PLANES_INL_H_
#undef URISCAN_KERNELS_PLANES_INL_H_
#else
#define URISCAN_KERNELS_PLANES_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"

#if HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

using namespace kernels;  // NOLINT: the Class names

// Highway 1.0.3's AVX3_DL target does not name GFNI, though every CPU with
// the rest of it has it: these functions add it, and run only where the
// CPU reports it.
#define URISCAN_GFNI __attribute__((target(HWY_TARGET_STR ",gfni")))
#define URISCAN_GFNI_INLINE URISCAN_GFNI inline __attribute__((always_inline))

inline bool CpuHasGfni() {
  static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("gfni"));
  return has;
}

// Bit b of class byte A (b = 0..6) is class b of kernels::Class, except
// that bit 0 says "accepted" (the complement of kStop before its '%' part)
// and bit 5 says ALPHA / DIGIT (the complement of kNotAlnum); bit 7 is '%'.
// Class byte B: bit 0 HEXDIG. Bytes >= 0x80 have no bit in either.
struct PlaneTables {
  alignas(64) uint8_t a[128];
  alignas(64) uint8_t b[128];
};
constexpr bool IsAlpha(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
constexpr bool IsDigit(int c) { return c >= '0' && c <= '9'; }
constexpr bool IsOneOf(int c, const char* set) {
  for (; *set; ++set)
    if (*set == c) return true;
  return false;
}
constexpr PlaneTables MakePlaneTables() {
  PlaneTables t{};
  for (int c = 0; c < 128; ++c) {
    // unreserved, reserved but "[" and "]" (IP literals go to the scalar
    // parser), and "%" (RFC 3986 section 2)
    const bool accepted = IsAlpha(c) || IsDigit(c) ||
                          IsOneOf(c, "-._~:/?#@!$&'()*+,;=%");
    const bool hex = IsDigit(c) || (c >= 'A' && c <= 'F') ||
                     (c >= 'a' && c <= 'f');
    t.a[c] = static_cast<uint8_t>(
        accepted | IsOneOf(c, ":/") << 1 | IsOneOf(c, "?#@") << 2 |
        (IsDigit(c) || IsOneOf(c, "%:#")) << 3 |
        ((c >= 'A' && c <= 'Z') || IsOneOf(c, ".@")) << 4 |
        (IsAlpha(c) || IsDigit(c)) << 5 | (c == '\n') << 6 | (c == '%') << 7);
    t.b[c] = static_cast<uint8_t>(hex);
  }
  return t;
}
alignas(64) inline constexpr PlaneTables kPlaneTables = MakePlaneTables();
static_assert(kStop == 0 && kColonSlash == 1 && kQuestionHashAt == 2 &&
                  kDigitPercentColonHash == 3 && kUpperDotAt == 4 &&
                  kNotAlnum == 5 && kNewline == 6,
              "class byte A holds the classes in enum order");

// Shuffle indices, set up once per window.
struct PlaneShuffles {
  __m512i reverse;     // bytes 7..0 of each qword: the transpose wants it
  __m512i pair_low;    // two blocks' planes 0-3, block by block
  __m512i pair_high;   // ... planes 4-7
  __m512i quad_low;    // four blocks' planes 0-1 (of 0-3 in pair form)
  __m512i quad_high;   // ... planes 2-3
  __m512i table_a0, table_a1, table_b0, table_b1;
};
URISCAN_GFNI_INLINE PlaneShuffles LoadPlaneShuffles() {
  alignas(64) uint8_t reverse[64], pair_low[64], pair_high[64];
  alignas(64) uint64_t quad_low[8], quad_high[8];
  for (int i = 0; i < 64; ++i)
    reverse[i] = static_cast<uint8_t>((i & ~7) | (7 - (i & 7)));
  // Pair form, from two transposed blocks (see ClassBytes): qword 2r + s
  // is plane r of block s (s = 0: the first operand).
  for (int r = 0; r < 4; ++r) {
    for (int s = 0; s < 2; ++s) {
      for (int q = 0; q < 8; ++q) {
        pair_low[(2 * r + s) * 8 + q] = static_cast<uint8_t>(s * 64 + q * 8 + r);
        pair_high[(2 * r + s) * 8 + q] = static_cast<uint8_t>(s * 64 + q * 8 + r + 4);
      }
    }
  }
  // Quad form, from two pair forms (blocks 0-1, then 2-3): qword 4r + t is
  // plane r of block t.
  for (int r = 0; r < 2; ++r) {
    for (int t = 0; t < 4; ++t) {
      const int from = (t < 2 ? 0 : 8) + (t & 1);
      quad_low[4 * r + t] = static_cast<uint64_t>(from + 2 * r);
      quad_high[4 * r + t] = static_cast<uint64_t>(from + 2 * (r + 2));
    }
  }
  PlaneShuffles s;
  s.reverse = _mm512_load_si512(reverse);
  s.pair_low = _mm512_load_si512(pair_low);
  s.pair_high = _mm512_load_si512(pair_high);
  s.quad_low = _mm512_load_si512(quad_low);
  s.quad_high = _mm512_load_si512(quad_high);
  s.table_a0 = _mm512_load_si512(kPlaneTables.a);
  s.table_a1 = _mm512_load_si512(kPlaneTables.a + 64);
  s.table_b0 = _mm512_load_si512(kPlaneTables.b);
  s.table_b1 = _mm512_load_si512(kPlaneTables.b + 64);
  return s;
}

// The 64 bytes at p as class bytes A and B, each transposed: byte 8q + r
// of the result is plane r's byte q (bits 8q..8q+7 of class r's mask).
// vgf2p8affineqb with the bytes as its matrix and unit vectors (1 << j in
// byte j) as its operand yields the transpose of each 8x8 bit matrix, with
// the rows reversed: hence the byte reversal first.
URISCAN_GFNI_INLINE void ClassBytes(const uint8_t* HWY_RESTRICT p,
                                    const PlaneShuffles& s, __m512i* a,
                                    __m512i* b) {
  const __m512i v = _mm512_permutexvar_epi8(s.reverse, _mm512_loadu_si512(p));
  const __mmask64 ascii = ~_mm512_movepi8_mask(v);
  const __m512i units = _mm512_set1_epi64(0x8040201008040201ull);
  *a = _mm512_gf2p8affine_epi64_epi8(
      units, _mm512_maskz_permutex2var_epi8(ascii, s.table_a0, v, s.table_a1), 0);
  *b = _mm512_gf2p8affine_epi64_epi8(
      units, _mm512_maskz_permutex2var_epi8(ascii, s.table_b0, v, s.table_b1), 0);
}

// The 8 planes of 8 transposed blocks x[0..8): planes[r] holds plane r's
// words of the 8 blocks in order.
URISCAN_GFNI_INLINE void Planes(const __m512i* x, const PlaneShuffles& s,
                                __m512i* planes) {
  __m512i pair[2][4];  // [planes 0-3 | 4-7][block pair]
  for (int i = 0; i < 4; ++i) {
    pair[0][i] = _mm512_permutex2var_epi8(x[2 * i], s.pair_low, x[2 * i + 1]);
    pair[1][i] = _mm512_permutex2var_epi8(x[2 * i], s.pair_high, x[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {
    // quad[g][0]: planes 4h + 0-1 of blocks 4g..4g+3; quad[g][1]: 4h + 2-3.
    __m512i quad[2][2];
    for (int g = 0; g < 2; ++g) {
      quad[g][0] = _mm512_permutex2var_epi64(pair[h][2 * g], s.quad_low,
                                             pair[h][2 * g + 1]);
      quad[g][1] = _mm512_permutex2var_epi64(pair[h][2 * g], s.quad_high,
                                             pair[h][2 * g + 1]);
    }
    for (int u = 0; u < 2; ++u) {
      planes[4 * h + 2 * u] = _mm512_shuffle_i64x2(quad[0][u], quad[1][u], 0x44);
      planes[4 * h + 2 * u + 1] = _mm512_shuffle_i64x2(quad[0][u], quad[1][u], 0xEE);
    }
  }
}

// Classes of the 512 bytes at p: a[r] and b[r] are class bytes A's and
// B's planes r, 8 blocks each.
URISCAN_GFNI_INLINE void ClassifyGroup(const uint8_t* HWY_RESTRICT p,
                                       const PlaneShuffles& s, __m512i* a,
                                       __m512i* b) {
  __m512i xa[8], xb[8];
  for (int k = 0; k < 8; ++k) ClassBytes(p + 64 * k, s, &xa[k], &xb[k]);
  Planes(xa, s, a);
  Planes(xb, s, b);
}

// ClassifyWindow on eight blocks at a time: the same masks.
template <bool kLines>
URISCAN_GFNI HWY_NOINLINE void ClassifyWindowGfni(
    const uint8_t* HWY_RESTRICT data, size_t size,
    uint64_t* HWY_RESTRICT masks) {
  const PlaneShuffles s = LoadPlaneShuffles();
  const size_t groups = (size + 511) / 512, whole = size / 512;
  const __m512i ones = _mm512_set1_epi64(-1);
  // A group's kStop waits for the next group's HEXDIG (its '%' part).
  __m512i accepted = ones, pct = _mm512_setzero_si512(),
          hex = _mm512_setzero_si512(), kept = ones;
  uint64_t* const stop_words = masks + kStop * kMaskStride;
  for (size_t g = 0; g <= groups; ++g) {
    __m512i a[8], b[8];
    __m512i keep = ones;  // the bits of each block that are bytes of data
    if (g < whole) {
      if (kLines) {  // a page ahead, as ClassifyWindow asks (a hint)
        for (int k = 0; k < 8; ++k) __builtin_prefetch(data + g * 512 + 64 * k + 4096);
      }
      ClassifyGroup(data + g * 512, s, a, b);
    } else if (g < groups) {  // the last, partial group, from a zeroed copy
      alignas(64) uint8_t tail[512] = {0};
      const size_t rest = size - g * 512;
      std::memcpy(tail, data + g * 512, rest);
      ClassifyGroup(tail, s, a, b);
      // A zero byte is in no class, so the copy's padding sets no bit but
      // in the complemented classes, which are stored through `keep`:
      // block k keeps rest - 64k bits (0 to 64).
      const __m512i have = _mm512_sub_epi64(
          _mm512_set1_epi64(static_cast<int64_t>(rest)),
          _mm512_setr_epi64(0, 64, 128, 192, 256, 320, 384, 448));
      const __m512i bits = _mm512_min_epi64(
          _mm512_max_epi64(have, _mm512_setzero_si512()), _mm512_set1_epi64(64));
      keep = _mm512_andnot_si512(_mm512_sllv_epi64(ones, bits), ones);
    } else {  // past the end: no HEXDIG
      b[0] = _mm512_setzero_si512();
    }
    if (g > 0) {
      // pct-encoded = "%" HEXDIG HEXDIG (RFC 3986 section 2.1): the
      // previous group's '%' bits that two HEXDIG do not follow stop it.
      const __m512i next = _mm512_alignr_epi64(b[0], hex, 1);
      const __m512i hex2 = _mm512_and_si512(_mm512_shrdi_epi64(hex, next, 1),
                                            _mm512_shrdi_epi64(hex, next, 2));
      const __m512i bad = _mm512_andnot_si512(hex2, pct);
      // (~accepted | bad) & kept
      const __m512i stop = _mm512_ternarylogic_epi64(accepted, bad, kept, 0x8A);
      _mm512_storeu_si512(stop_words + (g - 1) * 8, stop);
    }
    if (g == groups) break;
    accepted = a[0];
    pct = a[7];
    hex = b[0];
    kept = keep;
    uint64_t* const at = masks + g * 8;
    for (int r = 1; r < 5; ++r) _mm512_storeu_si512(at + r * kMaskStride, a[r]);
    _mm512_storeu_si512(at + kNotAlnum * kMaskStride, _mm512_andnot_si512(a[5], keep));
    if (kLines) _mm512_storeu_si512(at + kNewline * kMaskStride, a[6]);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // HWY_TARGET == HWY_AVX3_DL
#endif  // include guard
