// SPDX-License-Identifier: MIT
// uriscan_gen: a seeded generator of realistic synthetic URI references.
// The same seed gives the same bytes on every machine: it uses only
// std::mt19937_64 (fully specified by the standard) and its own reductions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint64_t Below(uint64_t n) { return rng_() % n; }
  bool Chance(int percent) { return Below(100) < static_cast<uint64_t>(percent); }
  template <size_t N>
  const char* Pick(const char* const (&list)[N]) { return list[Below(N)]; }

  std::string Word(int min_len, int max_len) {
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string w;
    const int len = min_len + static_cast<int>(Below(max_len - min_len + 1));
    for (int i = 0; i < len; ++i) w.push_back(kChars[Below(i == 0 ? 26 : 36)]);
    return w;
  }
  // A path or query word, sometimes with percent-encodings and sub-delims.
  std::string Text(int min_len, int max_len) {
    std::string w = Word(min_len, max_len);
    if (Chance(10)) w += Pick({"%20", "%2F", "%C3%A9", "%7e", "-", "_", ".", "~",
                               "!", "$", "'", "(1)", "*", "+", ",", ";"});
    if (Chance(5)) w += Word(1, 6);
    return w;
  }
  std::string Host() {
    const uint64_t r = Below(100);
    if (r < 80) {
      std::string h = Chance(60) ? "www." : "";
      h += Word(3, 12);
      if (Chance(20)) h += "." + Word(2, 8);
      h += Pick({".com", ".org", ".net", ".de", ".co.uk", ".io", ".ru", ".jp"});
      if (Chance(5)) h[0] = static_cast<char>(h[0] - 32);  // upper case
      return h;
    }
    if (r < 90) {
      return std::to_string(Below(256)) + "." + std::to_string(Below(256)) +
             "." + std::to_string(Below(256)) + "." + std::to_string(Below(256));
    }
    if (r < 98) return "[" + IPv6() + "]";
    return "[v" + std::string(1, "0123456789abcdefABCDEF"[Below(22)]) + "." +
           Word(1, 8) + "]";
  }
  std::string IPv6() {
    static const char kHex[] = "0123456789abcdef";
    auto piece = [&] {
      std::string p;
      const int len = 1 + static_cast<int>(Below(4));
      for (int i = 0; i < len; ++i) p.push_back(kHex[Below(16)]);
      return p;
    };
    switch (Below(4)) {
      case 0: {
        std::string s = piece();
        for (int i = 0; i < 7; ++i) s += ":" + piece();
        return s;
      }
      case 1: return piece() + ":" + piece() + "::" + piece();
      case 2: return "::ffff:" + std::to_string(Below(256)) + ".0.2." +
                     std::to_string(Below(256));
      default: return Chance(50) ? "::1" : "fe80::" + piece() + ":" + piece();
    }
  }
  std::string Uri() {
    std::string u;
    const uint64_t kind = Below(100);
    if (kind < 4) {  // no authority
      u = Pick({"mailto:", "urn:isbn:", "tel:+1-", "news:comp.", "data:text/plain,"});
      return u + Text(3, 20);
    }
    if (kind < 8) {  // relative references, as in logs
      u = Chance(50) ? "/" : "../";
      for (int i = 0, n = static_cast<int>(Below(5)); i < n; ++i)
        u += Text(1, 12) + "/";
      if (Chance(40)) u += "?" + Word(1, 8) + "=" + Text(1, 10);
      return u;
    }
    u = Pick({"http", "https", "https", "https", "ftp", "ws", "file", "HTTP"});
    u += "://";
    if (Chance(3)) u += Word(2, 8) + (Chance(50) ? ":" + Word(3, 10) : "") + "@";
    u += Host();
    if (Chance(8)) u += ":" + std::to_string(Below(65536));
    const int depth = static_cast<int>(Below(Chance(10) ? 14 : 5));
    for (int i = 0; i < depth; ++i) {
      u += "/";
      u += Chance(3) ? Pick({".", ".."}) : Text(1, 14);
    }
    if (Chance(30)) u += "/";
    if (Chance(35)) {
      u += "?";
      const int params = 1 + static_cast<int>(Below(Chance(10) ? 20 : 4));
      for (int i = 0; i < params; ++i) {
        if (i) u += "&";
        u += Chance(10) ? Pick({"utm_source", "utm_medium", "gclid", "fbclid"})
                        : Word(1, 10);
        u += "=" + Text(0, 16);
      }
    }
    if (Chance(8)) u += "#" + Text(0, 12);
    return u;
  }
  // A few percent of mutants: one byte replaced, inserted or cut.
  std::string Mutate(std::string u) {
    static const char kBad[] = " \"<>\\^`{|}%[]#@:\x7f\x01\xc3";
    const size_t at = Below(u.size() + 1);
    switch (Below(3)) {
      case 0: u.insert(u.begin() + at, kBad[Below(sizeof(kBad) - 1)]); break;
      case 1: if (at < u.size()) u[at] = kBad[Below(sizeof(kBad) - 1)]; break;
      default: u = u.substr(0, at) + "%" + (Chance(50) ? "g" : ""); break;
    }
    return u;
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 3986, count = 100000;
  int invalid_percent = 3, duplicate_percent = 0;
  const char* out_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    } else if (std::strncmp(argv[i], "--count=", 8) == 0) {
      count = std::strtoull(argv[i] + 8, nullptr, 10);
    } else if (std::strncmp(argv[i], "--invalid-percent=", 18) == 0) {
      invalid_percent = std::atoi(argv[i] + 18);
    } else if (std::strncmp(argv[i], "--duplicate-percent=", 20) == 0) {
      duplicate_percent = std::atoi(argv[i] + 20);
    } else if (std::strncmp(argv[i], "--out=", 6) == 0) {
      out_path = argv[i] + 6;
    } else {
      std::fprintf(stderr,
                   "usage: uriscan_gen [--seed=N] [--count=N] "
                   "[--invalid-percent=P] [--duplicate-percent=P] "
                   "[--out=FILE]\n"
                   "Writes COUNT synthetic URI references, one per line.\n"
                   "With --duplicate-percent, about P %% of the lines repeat\n"
                   "an earlier line (drawn uniformly from a reservoir of 4M),\n"
                   "half of them with the scheme in upper case.\n");
      return 2;
    }
  }
  std::FILE* out = out_path ? std::fopen(out_path, "wb") : stdout;
  if (!out) {
    std::perror(out_path);
    return 2;
  }
  Gen gen(seed);
  std::string line;
  // Earlier lines to repeat: a uniform sample of all of them (reservoir).
  std::vector<std::string> earlier;
  const size_t kReservoir = size_t{4} << 20;
  uint64_t originals = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (!earlier.empty() && gen.Chance(duplicate_percent)) {
      line = earlier[gen.Below(earlier.size())];
      if (gen.Chance(50) && line.compare(0, 4, "http") == 0)
        line.replace(0, 4, "HTTP");
    } else {
      line = gen.Uri();
      if (gen.Chance(invalid_percent)) line = gen.Mutate(line);
      ++originals;
      if (duplicate_percent > 0) {
        if (earlier.size() < kReservoir) {
          earlier.push_back(line);
        } else if (const uint64_t j = gen.Below(originals); j < kReservoir) {
          earlier[j] = line;
        }
      }
    }
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), out);
  }
  if (std::fclose(out) != 0) {
    std::perror("uriscan_gen");
    return 2;
  }
  return 0;
}
