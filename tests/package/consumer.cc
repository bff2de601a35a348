// SPDX-License-Identifier: MIT
// A program outside the project using the installed C++ API, built by
// tools/package-test.sh through find_package(uriscan) and through
// pkg-config, against the static and the shared library. Exits nonzero on
// any wrong answer.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/uriscan.h"

namespace {

int failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: wrong: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  using namespace uriscan;
  const std::string text = "HTTP://Example.COM:80/a/./b\nhttp://x/%zz\n";
  Scanner scanner;
  ComponentSpans spans;
  Check(scanner.ScanLines(text, &spans), "ScanLines");
  Check(spans.size() == 2, "two rows");
  Check(spans.Error(0).kind == ErrorKind::kNone, "row 0 valid");
  Check(spans.Error(1).kind == ErrorKind::kBadPercentEncoding, "row 1 %zz");
  Check(spans.Error(1).offset == 9, "row 1 offset");

  const Batch rows{text.data(), nullptr, spans.size()};
  NormalizedBatch normal;
  NormalizeBatch(rows, spans, Profile::kScheme, &normal);
  Check(normal.Get(0) == "http://example.com/a/b", "NormalizeBatch");
  Check(Normalize("http://a/b/../c", Profile::kSyntax) == "http://a/c",
        "Normalize");
  Check(Resolve("http://a/b/c/d;p?q", "../g") == "http://a/b/g", "Resolve");

  // The host parts (libpsl and libidn2, private to the library, reach the
  // link line through the package files).
  const PublicSuffixList psl;
  Check(psl.Lookup("www.example.co.uk").registrable_domain ==
            std::optional<std::string_view>("example.co.uk"),
        "PublicSuffixList");
  std::string surt;
  Check(AppendIaSurt("http://www.example.com/a", &surt) &&
            surt == "com,example)/a",
        "AppendIaSurt");

  const Fingerprinter fp(Profile::kScheme);
  std::vector<uint64_t> keys;
  fp.Batch64(rows, spans, &keys);
  Check(keys.size() == 2 && keys[0] == fp.Key64("http://example.com/a/b") &&
            keys[1] == 0,
        "Fingerprinter");

  Dedup::Options options;
  options.memory_bytes = size_t{1} << 20;
  Dedup dedup(options);
  Check(dedup.Add(keys[0]) == Dedup::Verdict::kFirst, "Dedup first");
  Check(dedup.Add(keys[0]) == Dedup::Verdict::kDuplicate, "Dedup again");
  std::vector<bool> first;
  std::string error;
  Check(dedup.Finish(&first, &error), "Dedup::Finish");

  std::printf("consumer: uriscan %s on %s, %s library: %s\n",
              URISCAN_VERSION_STRING, DispatchedTargetName(),
              URISCAN_SHARED_LIBRARY ? "shared" : "static",
              failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
