// SPDX-License-Identifier: MIT
// BM_MaskMoves: how fast this CPU moves comparison masks out of vector
// registers, the bound of stage 1 on AVX2 and on AVX-512 without GFNI.
// Each variant compares a 12 KiB window (a stage-1 window, in L1) with
// twelve byte values, as stage 1 once made twelve class masks, and moves every
// mask out one way; the masks are checked against a byte loop once.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

namespace uriscan_bench {
namespace {

constexpr size_t kWindow = 12 * 1024, kBlocks = kWindow / 64, kClasses = 12;
constexpr char kValues[kClasses + 1] = ":/?#@%.0aA-_";

struct Window {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> want;  // class-major, as stage 1 stores its masks
  Window() : bytes(kWindow), want(kClasses * kBlocks) {
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (uint8_t& b : bytes) {  // the twelve values and other bytes
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = (x & 1) ? static_cast<uint8_t>(kValues[(x >> 8) % kClasses])
                  : static_cast<uint8_t>('b' + (x >> 8) % 20);
    }
    for (size_t k = 0; k < kClasses; ++k)
      for (size_t i = 0; i < kWindow; ++i)
        if (bytes[i] == static_cast<uint8_t>(kValues[k]))
          want[k * kBlocks + i / 64] |= uint64_t{1} << (i % 64);
  }
};

// A 32-byte compare, its mask out by vpmovmskb: two per class and block.
__attribute__((target("avx2"))) void ByMovemask(const uint8_t* p,
                                                 uint64_t* out) {
  for (size_t j = 0; j < kBlocks; ++j) {
    const __m256i lo = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(p + j * 64));
    const __m256i hi = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(p + j * 64 + 32));
    for (size_t k = 0; k < kClasses; ++k) {
      const __m256i v = _mm256_set1_epi8(kValues[k]);
      uint32_t* word = reinterpret_cast<uint32_t*>(out + k * kBlocks + j);
      word[0] = static_cast<uint32_t>(
          _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)));
      word[1] = static_cast<uint32_t>(
          _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)));
    }
  }
}

// A 64-byte compare into a mask register, moved to memory (kmovq m64, k)
// when kToMemory says so for its class, else to a general-purpose register
// first (kmovq r64, k); `asm` keeps GCC from merging the two into one.
template <int kToMemory>
__attribute__((target("avx512f,avx512bw"))) void ByMaskRegister(
    const uint8_t* p, uint64_t* out) {
  for (size_t j = 0; j < kBlocks; ++j) {
    const __m512i v = _mm512_loadu_si512(p + j * 64);
    for (size_t k = 0; k < kClasses; ++k) {
      const __mmask64 m = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(kValues[k]));
      const bool to_memory = kToMemory == 1 || (kToMemory == 2 && k % 2 == 1);
      if (to_memory) {
        _store_mask64(reinterpret_cast<__mmask64*>(out + k * kBlocks + j), m);
      } else {
        uint64_t bits = _cvtmask64_u64(m);
        asm("" : "+r"(bits));
        out[k * kBlocks + j] = bits;
      }
    }
  }
}

template <void (*kMove)(const uint8_t*, uint64_t*)>
void BM_MaskMoves(benchmark::State& state, bool supported) {
  if (!supported) {
    state.SkipWithError("this CPU lacks the instructions");
    return;
  }
  static const Window w;
  std::vector<uint64_t> out(kClasses * kBlocks);
  kMove(w.bytes.data(), out.data());
  if (out != w.want) {
    state.SkipWithError("masks differ from the byte loop");
    return;
  }
  for (auto _ : state) {
    kMove(w.bytes.data(), out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kWindow));
  // items: 64-bit masks moved out
  state.SetItemsProcessed(
      static_cast<int64_t>(state.iterations() * kClasses * kBlocks));
}

const bool kRegistered = [] {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2");
  const bool avx512 = __builtin_cpu_supports("avx512bw");
  benchmark::RegisterBenchmark("BM_MaskMoves/vpmovmskb",
                               BM_MaskMoves<ByMovemask>, avx2);
  benchmark::RegisterBenchmark("BM_MaskMoves/kmov_to_gpr",
                               BM_MaskMoves<ByMaskRegister<0>>, avx512);
  benchmark::RegisterBenchmark("BM_MaskMoves/kmov_to_memory",
                               BM_MaskMoves<ByMaskRegister<1>>, avx512);
  benchmark::RegisterBenchmark("BM_MaskMoves/kmov_half_each",
                               BM_MaskMoves<ByMaskRegister<2>>, avx512);
  return true;
}();

}  // namespace
}  // namespace uriscan_bench
#endif  // x86-64
