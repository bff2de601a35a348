// SPDX-License-Identifier: MIT
// Stage 2's driver, per target: the rows of one stage-1 window, N per step
// in vector lanes, on 64- to 512-byte windows of their masks.
// Included once per target, by kernels/scan.cc.
#if defined(URISCAN_KERNELS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_ROWS_INL_H_
#undef URISCAN_KERNELS_ROWS_INL_H_
#else
#define URISCAN_KERNELS_ROWS_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/structure-inl.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

// Error-kind value, inside a scan only: the row is longer than the window
// it was tried on, and goes on to a wider one.
inline constexpr uint8_t kLonger = 0xFE;

// Rows [0, n) with bounds b[j], e[j] (offsets from data), their masks in
// the window that starts at data + base. Row j is written to output row
// out0 + j, or to out_row[j] when that is given.
struct RowSet {
  const uint32_t* b;
  const uint32_t* e;
  size_t n;
  size_t out0;
  const uint32_t* out_row;
};

// The boundary columns, in URISCAN_BOUNDARY_COLUMNS order.
#define URISCAN_COLUMN(name) +1
inline constexpr int kBoundaryColumns = 0 URISCAN_BOUNDARY_COLUMNS(URISCAN_COLUMN);
#undef URISCAN_COLUMN

// Where stage 2 writes the boundary columns: row r's value of column c
// goes to col[c][r - row0]. The common pass writes a run of rows into a
// small stage that stays in L1 and copies each column out in one piece
// (see ScanRows); interleaving thirteen narrow streams of stores straight
// into columns much larger than the caches costs more than that copy.
struct BoundaryOut {
  uint32_t* col[kBoundaryColumns];
  size_t row0;
};
HWY_INLINE BoundaryOut Columns(const kernels::SpanColumns& cols) {
#define URISCAN_COLUMN(name) cols.name,
  return BoundaryOut{{URISCAN_BOUNDARY_COLUMNS(URISCAN_COLUMN)}, 0};
#undef URISCAN_COLUMN
}

// Where the words of a group's windows come from. When the group's rows lie
// within 2N blocks (N lanes, a power of two), each class's words are two
// vector loads and lane permutes; otherwise they are gathered. Where
// URISCAN_LANE_PAIR_LOADS (AVX2: no 64-bit lane permute by vector), each
// of the 4 lanes loads its words in 16-byte pairs where they lie, and two
// interleaves transpose them, whatever the rows' spread.
template <size_t NW>
struct WordSource {
  bool near;
  size_t first_block;
  HWY_ALIGN Lanes block;        // gathers: each lane's first block
  HWY_ALIGN Lanes from;         // permutes: block - first_block, below 2N
  uint32_t lane_block[kMaxLanes];  // pair loads: each lane's first block
};

// Word w of every lane's window of `column`, near: t0 and t1 are the 2N
// words from the group's first block on.
template <size_t NW>
HWY_INLINE V64 NearWord(const WordSource<NW>& src, size_t w, V64 t0, V64 t1) {
  return TwoTableLookup(t0, t1, hn::Add(Get(src.from), K(w)));
}

// A funnel shift of words w and w + 1 of each lane's window, so that the
// row's first byte becomes bit 0; clipped at the row's end when kClip.
template <size_t NW, bool kClip>
HWY_INLINE void PutWindowWord(Bits<NW>* out, size_t j, V64 word, V64 next,
                              V64 shift, V64 back, const Bits<NW>& inside) {
  V64 r = Funnel(word, next, shift, back);
  if (kClip) r = hn::And(r, Word(inside, j));
  Put(out->w[j], r);
}

// Class `column`'s bits from each row's first byte on, into *out; past the
// row's end cleared when kClip. Reads at most NW + 1 words past a lane's
// first block: within the kPadBlocks zero blocks.
template <size_t NW, bool kClip>
HWY_INLINE void Window(const uint64_t* HWY_RESTRICT column,
                       const WordSource<NW>& src, V64 shift, V64 back,
                       const Bits<NW>& inside, Bits<NW>* out) {
#if URISCAN_LANE_PAIR_LOADS
  const D64 d;
  const hn::Half<D64> dh;
  static_assert(hn::MaxLanes(D64()) == 4, "four lanes of two 16-byte halves");
  auto pair = [&](size_t lane, size_t w) {
    return hn::LoadU(dh, column + src.lane_block[lane] + w);
  };
  // Words w and w + 1 of each lane, two at a time; word w - 1 is `prev`.
  V64 prev = hn::Zero(d);
  for (size_t w = 0; w <= NW; w += 2) {
    const V64 lanes02 = hn::Combine(d, pair(2, w), pair(0, w));
    const V64 lanes13 = hn::Combine(d, pair(3, w), pair(1, w));
    const V64 word = hn::InterleaveLower(d, lanes02, lanes13);
    const V64 next = hn::InterleaveUpper(d, lanes02, lanes13);
    if (w > 0) PutWindowWord<NW, kClip>(out, w - 1, prev, word, shift, back, inside);
    if (w < NW) PutWindowWord<NW, kClip>(out, w, word, next, shift, back, inside);
    prev = next;
  }
#else
  const D64 d;
  V64 t0 = hn::Zero(d), t1 = hn::Zero(d);
  if (src.near) {
    t0 = hn::LoadU(d, column + src.first_block);
    t1 = hn::LoadU(d, column + src.first_block + hn::Lanes(d));
  }
  const hn::RebindToSigned<D64> di;
  const auto block = hn::BitCast(di, Get(src.block));
  V64 word = src.near ? NearWord(src, 0, t0, t1)
                      : hn::GatherIndex(d, column, block);
  for (size_t j = 0; j < NW; ++j) {
    const V64 next = src.near ? NearWord(src, j + 1, t0, t1)
                              : hn::GatherIndex(d, column + j + 1, block);
    PutWindowWord<NW, kClip>(out, j, word, next, shift, back, inside);
    word = next;
  }
#endif
}

// The six class windows of the N rows (one vector of lanes) that start at
// b[0..N) and are `len` bytes long, on NW-word windows of their masks.
// Classes that are only read inside ranges ending within the row
// (authority, host, port, path, scheme), or through a clipped class (see
// Structurize), skip the clip: the next row's bits past the end do no harm
// there.
template <size_t NW>
HWY_INLINE void MakeWindows(const uint64_t* HWY_RESTRICT masks, uint32_t base,
                            const uint32_t* b, V64 begin, V64 len,
                            Windows<NW>* win) {
  const D64 d;
  const size_t N = hn::Lanes(d);
  const V64 rel = hn::Sub(begin, K(base));
  const V64 shift = hn::And(rel, K(63));
  const V64 back = FunnelBack(shift);
  const Bits<NW> inside = Below<NW>(MinPos(len, K(64 * NW)));
  WordSource<NW> src;
  src.first_block = (b[0] - base) >> 6;
  src.near = (N & (N - 1)) == 0 &&
             ((b[N - 1] - base) >> 6) + NW < src.first_block + 2 * N;
  Put(src.block, hn::ShiftRight<6>(rel));
  Put(src.from, hn::Sub(hn::ShiftRight<6>(rel), K(src.first_block)));
  if (URISCAN_LANE_PAIR_LOADS) {
    for (size_t i = 0; i < N; ++i) src.lane_block[i] = (b[i] - base) >> 6;
  }
  auto column = [&](int k) { return masks + k * kMaskStride; };
  Window<NW, true>(column(kStop), src, shift, back, inside, &win->stop);
  Window<NW, true>(column(kColonSlash), src, shift, back, inside,
                   &win->colon_slash);
  Window<NW, true>(column(kQuestionHashAt), src, shift, back, inside,
                   &win->question_hash_at);
  Window<NW, true>(column(kDigitPercentColonHash), src, shift, back, inside,
                   &win->digit_percent_colon_hash);
  Window<NW, false>(column(kUpperDotAt), src, shift, back, inside,
                    &win->upper_dot_at);
  Window<NW, false>(column(kNotAlnum), src, shift, back, inside,
                    &win->not_alnum);
}

// Structurize for the N rows that start at b[0..N) and are `len` bytes
// long, into *s.
template <size_t NW, bool kFaultsBeforeStop = false>
HWY_INLINE void StructureOf(const uint64_t* HWY_RESTRICT masks, uint32_t base,
                            const uint32_t* b, V64 begin, V64 len,
                            Structure* s) {
  Windows<NW> win;
  MakeWindows<NW>(masks, base, b, begin, len, &win);
  Structurize<NW, kFaultsBeforeStop>(win, len, s);
}

// One stage-1 window and where stage 2 writes its rows: what every step
// over the window reads.
struct WindowScan {
  const uint8_t* data;    // the scanned bytes (offsets are from here)
  const uint64_t* masks;  // the window's class masks
  uint32_t base;          // the offset of the window's first byte
  const kernels::SpanColumns& cols;  // every column but the staged ones
};

// A step: N rows (one vector of lanes) from row j of a RowSet, their bounds
// where they lie or, for a last step short of N, padded with empty rows at
// the last row's start (which keeps the starts in order); `valid` of the N
// are real.
struct Step {
  const uint32_t* b;
  const uint32_t* e;
  size_t valid;
  size_t j;
};
HWY_INLINE Step StepRows(const RowSet& rows, size_t j, size_t N,
                         uint32_t* pad_b, uint32_t* pad_e) {
  const uint32_t* b = rows.b + j;
  const uint32_t* e = rows.e + j;
  if (j + N <= rows.n) return Step{b, e, N, j};
  const size_t last = rows.n - 1 - j;
  for (size_t i = 0; i < N; ++i) {
    pad_b[i] = i <= last ? b[i] : b[last];
    pad_e[i] = i <= last ? e[i] : b[last];
  }
  return Step{pad_b, pad_e, last + 1, j};
}

// Rows the fast path left to the scalar parser (a step of rows at most
// 64 * NW bytes long, output rows out_row[]) whose first fault is a byte
// allowed nowhere, the common error in real traffic, get that error here
// rather than from the scalar parser (see Structurize).
template <size_t NW>
HWY_NOINLINE void SettleDisallowed(const WindowScan& w, const Step& step,
                                   const uint32_t* out_row) {
  const uint8_t* HWY_RESTRICT data = w.data;
  const uint64_t* HWY_RESTRICT masks = w.masks;
  const uint32_t base = w.base;
  const kernels::SpanColumns& cols = w.cols;
  const uint32_t* b = step.b;
  const uint32_t* e = step.e;
  const size_t valid = step.valid;
  const D64 d;
  const hn::Rebind<uint32_t, D64> d32;
  {
    const V64 begin = hn::PromoteTo(d, hn::LoadU(d32, b));
    const V64 len = hn::Sub(hn::PromoteTo(d, hn::LoadU(d32, e)), begin);
    Structure t;
    StructureOf<NW, true>(masks, base, b, begin, len, &t);
    const M64 first_fault_is_stop =
        hn::AndNot(GetMask(t.slow), Less(Get(t.stop_at), len));
    if (hn::AllFalse(d, first_fault_is_stop)) return;
    uint8_t lanes[8] = {0};
    hn::StoreMaskBits(d, first_fault_is_stop, lanes);
    const uint64_t* stop_at = t.stop_at;
    for (size_t i = 0; i < valid; ++i) {
      if (!((lanes[i / 8] >> (i % 8)) & 1)) continue;
      // The stop class also holds '[' ']' and a '%' without two HEXDIG.
      const uint8_t c = data[b[i] + stop_at[i]];
      if (c == '[' || c == ']' || c == '%') continue;
      const size_t r = out_row[i];
      // As the scalar parser leaves an invalid row: every boundary at its
      // start but the end, no flags.
#define URISCAN_COLUMN(name) cols.name[r] = b[i];
      URISCAN_INNER_BOUNDARIES(URISCAN_COLUMN)
#undef URISCAN_COLUMN
      cols.flags[r] = 0;
      cols.error_kind[r] = static_cast<uint8_t>(ErrorKind::kDisallowedByte);
      cols.error_offset[r] = static_cast<uint32_t>(stop_at[i]);
    }
  }
}

// Stage 2 for one step of `rows` on NW-word windows. The boundary columns
// go to `bounds`, the others to the window's columns.
template <size_t NW>
HWY_INLINE void GroupBody(const WindowScan& w, const RowSet& rows,
                          const Step& step, const BoundaryOut& bounds) {
  const uint8_t* HWY_RESTRICT data = w.data;
  const kernels::SpanColumns& cols = w.cols;
  const uint32_t* b = step.b;
  const uint32_t* e = step.e;
  const size_t j = step.j;
  const D64 d;
  const hn::Rebind<uint32_t, D64> d32;
  const hn::Rebind<uint16_t, D64> d16;
  const hn::Rebind<uint8_t, D64> d8;
  constexpr size_t kMax = HWY_MAX_BYTES / 8;
  const size_t N = hn::Lanes(d);
  const V64 begin = hn::PromoteTo(d, hn::LoadU(d32, b));
  const V64 end = hn::PromoteTo(d, hn::LoadU(d32, e));
  const V64 len = hn::Sub(end, begin);
  const bool whole = step.valid == N;
  Structure s;
  StructureOf<NW>(w.masks, w.base, b, begin, len, &s);
  const M64 longer = Less(K(64 * NW), len);
  const V64 error = hn::IfThenElse(
      longer, K(kLonger),
      hn::IfThenElseZero(GetMask(s.slow), K(kernels::kNeedsScalar)));

  // Results, in lanes, then into the columns.
  // The columns in URISCAN_BOUNDARY_COLUMNS order, each as an offset from
  // the row's start.
  constexpr int kColumns = kBoundaryColumns;
  HWY_ALIGN uint32_t out[kColumns][kMax];
  HWY_ALIGN uint16_t out_flags[kMax] = {0};
  HWY_ALIGN uint8_t out_error[kMax] = {0};  // (GCC 12 -O2 warns otherwise)
  HWY_ALIGN Lanes zero = {0};
  HWY_ALIGN Lanes length;
  Put(length, len);
#define URISCAN_COLUMN(name) s.name,
  const uint64_t* const values[kColumns] = {
      zero, URISCAN_INNER_BOUNDARIES(URISCAN_COLUMN) length};
#undef URISCAN_COLUMN
  const bool direct = whole && rows.out_row == nullptr;
  const size_t row = rows.out0 + j;
  uint32_t* const* dst = bounds.col;
  const size_t at = row - bounds.row0;  // where `row` goes in `bounds`
  int c = 0;
#if HWY_TARGET != HWY_SCALAR
  // Two columns at a time: one permute keeps the low halves of both, and
  // one 32-bit add offsets them (the offsets are 32-bit).
  const hn::Repartition<uint32_t, D64> d32x2;
  const auto begin2 = hn::ConcatEven(d32x2, hn::BitCast(d32x2, begin),
                                     hn::BitCast(d32x2, begin));
  for (; c + 1 < kColumns; c += 2) {
    const auto sum = hn::Add(
        hn::ConcatEven(d32x2, hn::BitCast(d32x2, Get(values[c + 1])),
                       hn::BitCast(d32x2, Get(values[c]))),
        begin2);
    hn::StoreU(hn::LowerHalf(sum), d32, direct ? dst[c] + at : out[c]);
    hn::StoreU(hn::UpperHalf(d32, sum), d32,
               direct ? dst[c + 1] + at : out[c + 1]);
  }
#endif
  for (; c < kColumns; ++c) {
    const auto v = hn::TruncateTo(d32, hn::Add(begin, Get(values[c])));
    hn::StoreU(v, d32, direct ? dst[c] + at : out[c]);
  }
  uint16_t* flags = direct ? cols.flags + row : out_flags;
  hn::StoreU(hn::TruncateTo(d16, Get(s.flags)), d16, flags);
  hn::StoreU(hn::TruncateTo(d8, error), d8,
             direct ? cols.error_kind + row : out_error);
  if (direct) hn::StoreU(hn::Zero(d32), d32, cols.error_offset + row);

  // A host that starts with a digit may be an IPv4address.
  const M64 ipv4 = hn::AndNot(longer, GetMask(s.ipv4));
  if (HWY_UNLIKELY(!hn::AllFalse(d, ipv4))) {
    uint8_t lanes[8] = {0};
    hn::StoreMaskBits(d, ipv4, lanes);
    const uint64_t* h = s.host_begin;
    const uint64_t* host_end = s.host_end;
    for (size_t i = 0; i < N; ++i) {
      if (!((lanes[i / 8] >> (i % 8)) & 1)) continue;
      if (IsDottedQuad(data + b[i] + h[i], host_end[i] - h[i])) {
        flags[i] |= static_cast<uint16_t>(
            static_cast<uint16_t>(HostKind::kIPv4) << flags::kHostKindShift);
      }
    }
  }
  const size_t valid = step.valid;
  if (!direct) {
    for (size_t i = 0; i < valid; ++i) {
      const size_t r = rows.out_row ? rows.out_row[j + i] : row + i;
      for (int k = 0; k < kColumns; ++k) dst[k][r - bounds.row0] = out[k][i];
      cols.flags[r] = out_flags[i];
      cols.error_kind[r] = out_error[i];
      cols.error_offset[r] = 0;
    }
  }
}

// The step for the common 64-byte windows is inlined into the loop (see
// ScanRows); the wider ones are calls, so their many live registers do not
// make the compiler spill in the common step.
template <size_t NW>
HWY_NOINLINE void WideGroup(const WindowScan& w, const RowSet& rows,
                            const Step& step, const BoundaryOut& bounds) {
  GroupBody<NW>(w, rows, step, bounds);
}
// Stage 2, N rows per step. The first pass (NW = 1, a run of contiguous
// rows) writes the boundary columns through an L1-resident stage of
// kStageRows rows (see BoundaryOut); the passes over the longer rows write
// them in place.
//
// Which window a step takes depends on its rows' lengths, a branch no
// predictor learns (on kasztp 45 % of 8-row steps hold a row over 64
// bytes, at random). So the first pass sorts the steps of each stage into
// lists first, those whose rows all fit 64 bytes and the others, and runs
// each list in a loop of its own on 64- and 128-byte windows; the stage
// takes its rows in any order (positions, not appends). Rows of 129 to 256
// bytes are fewer still (5 % of userbait's, in a third of its steps): they
// are set aside, N at a time on 256-byte windows, rather than taking their
// whole steps there, and overwrite their rows of the stage.
inline constexpr size_t kStageRows = 256;  // a multiple of every N
template <size_t NW>
inline void ScanRows(const WindowScan& w, const RowSet& rows) {
  const D64 d;
  const hn::Rebind<uint32_t, D64> d32;
  constexpr size_t kMax = HWY_MAX_BYTES / 8;
  const size_t N = hn::Lanes(d);
  const BoundaryOut in_place = Columns(w.cols);
  if (NW != 1 || rows.out_row != nullptr) {
    for (size_t j = 0; j < rows.n; j += N) {
      // A padded last step's results go through a copy.
      HWY_ALIGN uint32_t pad_b[kMax], pad_e[kMax];
      const Step step = StepRows(rows, j, N, pad_b, pad_e);
      WideGroup<NW>(w, rows, step, in_place);
    }
    return;
  }
  HWY_ALIGN uint32_t stage[kBoundaryColumns][kStageRows];
  BoundaryOut staging;
  for (int c = 0; c < kBoundaryColumns; ++c) staging.col[c] = stage[c];
  // The steps of one stage by window: 64 and 128 bytes.
  uint32_t by_window[2][kStageRows];
  // The rows of 129 to 256 bytes, set aside: their bounds and output rows.
  uint32_t aside_b[kStageRows], aside_e[kStageRows], aside_row[kStageRows];
  for (size_t first = 0; first < rows.n; first += kStageRows) {
    const size_t last = HWY_MIN(rows.n, first + kStageRows);
    size_t count[2] = {0, 0}, aside = 0;
    HWY_ALIGN uint32_t pad_b[kMax], pad_e[kMax];
    for (size_t j = first; j < last; j += N) {
      const Step step = StepRows(rows, j, N, pad_b, pad_e);
      const V64 len = hn::Sub(hn::PromoteTo(d, hn::LoadU(d32, step.e)),
                              hn::PromoteTo(d, hn::LoadU(d32, step.b)));
      const size_t k = hn::AllFalse(d, Less(K(64), len)) ? 0 : 1;
      by_window[k][count[k]++] = static_cast<uint32_t>(j);
      if (HWY_UNLIKELY(!hn::AllFalse(d, Less(K(128), len)))) {
        for (size_t i = 0; i < step.valid; ++i) {
          const uint32_t n = step.e[i] - step.b[i];
          if (n <= 128 || n > 256) continue;
          aside_b[aside] = step.b[i];
          aside_e[aside] = step.e[i];
          aside_row[aside++] = static_cast<uint32_t>(rows.out0 + j + i);
        }
      }
    }
    staging.row0 = rows.out0 + first;
    for (size_t i = 0; i < count[0]; ++i) {
      const Step step = StepRows(rows, by_window[0][i], N, pad_b, pad_e);
      GroupBody<1>(w, rows, step, staging);
    }
    for (size_t i = 0; i < count[1]; ++i) {
      const Step step = StepRows(rows, by_window[1][i], N, pad_b, pad_e);
      WideGroup<2>(w, rows, step, staging);
    }
    // The rows set aside overwrite what their 128-byte step left (kLonger).
    const RowSet longer{aside_b, aside_e, aside, 0, aside_row};
    for (size_t i = 0; i < aside; i += N) {
      const Step step = StepRows(longer, i, N, pad_b, pad_e);
      WideGroup<4>(w, longer, step, staging);
    }
    for (int c = 0; c < kBoundaryColumns; ++c) {
      std::memcpy(in_place.col[c] + staging.row0, stage[c],
                  (last - first) * sizeof(uint32_t));
    }
  }
}

// The rows of `in` whose error kind is `kind` and that are at most
// max_len bytes long, as a RowSet over the scratch's row arrays (which
// `in` may already use).
HWY_INLINE RowSet RowsOfKind(const RowSet& in, uint8_t kind, uint32_t max_len,
                             const kernels::ScanScratch& s,
                             const kernels::SpanColumns& cols) {
  size_t t = 0;
  auto keep = [&](uint32_t r, size_t j) {
    const uint32_t b = in.b[j], e = in.e[j];
    if (e - b > max_len) return;
    s.rows[t] = r;
    s.row_begin[t] = b;
    s.row_end[t] = e;
    ++t;
  };
  if (in.out_row == nullptr) {  // contiguous rows: memchr skips the others
    const uint8_t* kinds = cols.error_kind + in.out0;
    for (const void* at = std::memchr(kinds, kind, in.n); at != nullptr;) {
      const size_t j = static_cast<size_t>(static_cast<const uint8_t*>(at) - kinds);
      keep(static_cast<uint32_t>(in.out0 + j), j);
      at = std::memchr(kinds + j + 1, kind, in.n - j - 1);
    }
  } else {
    for (size_t j = 0; j < in.n; ++j) {
      if (cols.error_kind[in.out_row[j]] == kind) keep(in.out_row[j], j);
    }
  }
  return RowSet{s.row_begin, s.row_end, t, 0, s.rows};
}

// Stage 2: every row on a 64-, 128- or 256-byte window (ScanRows<1>); the
// rows longer than that, up to kLongestRow bytes, on 512-byte windows;
// rows longer still go to the scalar parser, and so do those that break a
// rule, unless the first fault is a byte allowed nowhere
// (SettleDisallowed). Long rows are rare (in real traffic, long query
// strings), but the scalar parser costs 50 times as much per byte, so
// leaving them to it cost more than all the others.
inline constexpr uint32_t kLongestRow = 64 * 8;
inline void ScanWindowRows(const uint8_t* data, const uint64_t* masks,
                           uint32_t base, const RowSet& rows,
                           const kernels::ScanScratch& scratch,
                           const kernels::SpanColumns& cols) {
  constexpr uint32_t kAny = ~uint32_t{0};
  const WindowScan w{data, masks, base, cols};
  ScanRows<1>(w, rows);
  const RowSet longer = RowsOfKind(rows, kLonger, kAny, scratch, cols);
  if (longer.n != 0) {
    ScanRows<8>(w, longer);
    for (size_t j = 0; j < longer.n; ++j) {
      uint8_t& kind = cols.error_kind[longer.out_row[j]];
      if (kind == kLonger) kind = kernels::kNeedsScalar;
    }
  }
  const RowSet left =
      RowsOfKind(rows, kernels::kNeedsScalar, kLongestRow, scratch, cols);
  const D64 d;
  const size_t N = hn::Lanes(d);
  constexpr size_t kMax = HWY_MAX_BYTES / 8;
  for (size_t j = 0; j < left.n; j += N) {
    // Each step takes the narrowest window its rows fit.
    HWY_ALIGN uint32_t pad_b[kMax], pad_e[kMax];
    const Step step = StepRows(left, j, N, pad_b, pad_e);
    uint32_t longest = 0;
    for (size_t i = 0; i < N; ++i)
      longest = HWY_MAX(longest, step.e[i] - step.b[i]);
    const uint32_t* out_row = left.out_row + j;
    if (longest <= 64) {
      SettleDisallowed<1>(w, step, out_row);
    } else if (longest <= 128) {
      SettleDisallowed<2>(w, step, out_row);
    } else if (longest <= 256) {
      SettleDisallowed<4>(w, step, out_row);
    } else {
      SettleDisallowed<8>(w, step, out_row);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
