// SPDX-License-Identifier: MIT
// Writes generated URLs for the seen-set benchmark (tools/bench-state.sh):
// `url_gen FROM TO` writes URL number i for i in [FROM, TO), one a line,
// each distinct, hosts and paths spread by a hash of i so that sorted keys
// and input order share nothing. Streams: a state of 10^9 keys is built
// from a pipe, not a 40 GB file.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

uint64_t Mix(uint64_t z) {  // SplitMix64's finalizer
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

char* Decimal(char* p, uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = digits[--n];
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: url_gen FROM TO\n");
    return 2;
  }
  const uint64_t from = std::strtoull(argv[1], nullptr, 10);
  const uint64_t to = std::strtoull(argv[2], nullptr, 10);
  static const char* const kWords[] = {"news", "shop", "blog", "wiki",
                                       "docs", "forum", "media", "api"};
  std::string out;
  out.reserve(1 << 20);
  char line[128];
  for (uint64_t i = from; i < to; ++i) {
    const uint64_t h = Mix(i + 0x9E3779B97F4A7C15ull);
    char* p = line;
    std::memcpy(p, "http://", 7);
    p += 7;
    const char* word = kWords[h & 7];
    const size_t len = std::strlen(word);
    std::memcpy(p, word, len);
    p = Decimal(p + len, (h >> 3) % 100000);
    std::memcpy(p, ".example/", 9);
    p = Decimal(p + 9, (h >> 20) % 1000);
    *p++ = '/';
    p = Decimal(p, i);
    if (h >> 60 < 6) {
      std::memcpy(p, "?id=", 4);
      p = Decimal(p + 4, h >> 40 & 0xfffff);
    }
    *p++ = '\n';
    out.append(line, static_cast<size_t>(p - line));
    if (out.size() >= (1 << 20) - 128) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size())
        return 1;  // a closed pipe: the reader has what it wanted
      out.clear();
    }
  }
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) return 1;
  return std::fflush(stdout) == 0 ? 0 : 1;
}
