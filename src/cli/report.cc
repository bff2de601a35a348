// SPDX-License-Identifier: MIT
// The counts of a run, the stats report and the summary on stderr.
#include "src/cli/report.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "src/cli/pipeline.h"

namespace uriscan {
namespace cli {

void Count(const UriReference& uri, Totals* t) {
  ++t->lines;
  if (!uri.valid()) {
    ++t->by_error[static_cast<size_t>(uri.error().kind)];
    return;
  }
  ++t->valid;
  const uint16_t f = uri.flags();
  t->scheme += (f & flags::kHasScheme) != 0;
  t->userinfo += (f & flags::kHasUserinfo) != 0;
  t->port += (f & flags::kHasPort) != 0;
  t->query += (f & flags::kHasQuery) != 0;
  t->fragment += (f & flags::kHasFragment) != 0;
  if (f & flags::kHasAuthority) {
    ++t->authority;
    ++t->by_host[static_cast<size_t>(uri.host_kind())];
  }
}

// Count() for every row of `s` at once, column by column, when no row is
// over-long: what `validate` needs, without a UriReference per row.
void CountColumns(const ComponentSpans& s, Totals* t) {
  const size_t n = s.size();
  // Sums only, no branch and no table, so the compiler vectorizes the loop.
  uint32_t valid = 0, scheme = 0, authority = 0, userinfo = 0, port = 0,
           query = 0, fragment = 0;
  uint32_t by_host[4] = {0, 0, 0, 0};
  constexpr uint32_t kHost = flags::kHasAuthority | flags::kHostKindMask;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t f = s.flags[i];  // 0 for an invalid row
    valid += s.error_kind[i] == 0;
    scheme += (f & flags::kHasScheme) != 0;
    authority += (f & flags::kHasAuthority) != 0;
    userinfo += (f & flags::kHasUserinfo) != 0;
    port += (f & flags::kHasPort) != 0;
    query += (f & flags::kHasQuery) != 0;
    fragment += (f & flags::kHasFragment) != 0;
    const uint32_t host = f & kHost;
    for (uint32_t k = 0; k < 4; ++k)
      by_host[k] += host == (flags::kHasAuthority | k << flags::kHostKindShift);
  }
  if (valid != n) {
    ForEachInvalid(s.error_kind.data(), n,
                   [&](size_t i) { ++t->by_error[s.error_kind[i]]; });
  }
  t->lines += n;
  t->valid += valid;
  t->scheme += scheme;
  t->authority += authority;
  t->userinfo += userinfo;
  t->port += port;
  t->query += query;
  t->fragment += fragment;
  for (size_t k = 0; k < 4; ++k) t->by_host[k] += by_host[k];
}


void CountRisks(uint32_t risk_flags, Totals* t) {
  if (risk_flags == 0 || (risk_flags & risks::kInvalid)) return;
  ++t->flagged;
  for (int k = 0; k < risks::kCount; ++k)
    t->by_risk[k] += (risk_flags >> k) & 1;
}

void PrintStats(const Options& opt, const Totals& t, double wall,
                const std::string& from) {
  auto pct = [&](uint64_t n) { return t.lines ? 100.0 * n / t.lines : 0.0; };
  std::printf("uriscan stats: RFC 3986 URI-reference, %s\n",
              opt.lenient ? "lenient (repaired, then strict)" : "strict");
  for (const std::string& f : opt.files)
    std::printf("  input            %s\n", f == "-" ? "<stdin>" : f.c_str());
  if (!from.empty()) {
    std::printf("  log lines        %llu (%s), %llu URI references, %llu "
                "malformed\n",
                static_cast<unsigned long long>(t.log_lines), from.c_str(),
                static_cast<unsigned long long>(t.extracted),
                static_cast<unsigned long long>(t.malformed));
    for (size_t k = 0; k < kNoTargetKinds; ++k)
      std::printf("    %-16s %llu\n", NoTargetName(static_cast<NoTarget>(k)),
                  static_cast<unsigned long long>(t.no_target[k]));
  }
  std::printf("  URIs scanned     %llu (%.1f MB)\n",
              static_cast<unsigned long long>(t.lines), t.bytes / 1e6);
  std::printf("  valid            %llu (%.2f %%)\n",
              static_cast<unsigned long long>(t.valid), pct(t.valid));
  std::printf("  invalid          %llu (%.2f %%)\n",
              static_cast<unsigned long long>(t.lines - t.valid),
              pct(t.lines - t.valid));
  for (int k = 1; k < kErrorKindCount; ++k) {
    if (t.by_error[k] == 0) continue;
    std::printf("    %-16s %llu\n", ErrorKindName(static_cast<ErrorKind>(k)),
                static_cast<unsigned long long>(t.by_error[k]));
  }
  if (opt.lenient)
    std::printf("  repaired         %llu (--lenient: percent-encoded bytes, "
                "lone %%, IDNA hosts)\n",
                static_cast<unsigned long long>(t.repaired));
  std::printf("  byte-order marks %llu dropped\n",
              static_cast<unsigned long long>(t.boms));
  std::printf("  host kinds       name %llu, ipv4 %llu, ipv6 %llu, "
              "ipvfuture %llu\n",
              static_cast<unsigned long long>(t.by_host[0]),
              static_cast<unsigned long long>(t.by_host[1]),
              static_cast<unsigned long long>(t.by_host[2]),
              static_cast<unsigned long long>(t.by_host[3]));
  std::printf("  defined          scheme %llu, authority %llu, userinfo %llu, "
              "port %llu, query %llu, fragment %llu\n",
              static_cast<unsigned long long>(t.scheme),
              static_cast<unsigned long long>(t.authority),
              static_cast<unsigned long long>(t.userinfo),
              static_cast<unsigned long long>(t.port),
              static_cast<unsigned long long>(t.query),
              static_cast<unsigned long long>(t.fragment));
  std::printf("  risk flags       %llu lines with any (RFC 3986 section 7)\n",
              static_cast<unsigned long long>(t.flagged));
  for (int k = 0; k < risks::kCount; ++k) {
    std::printf("    %-22s %llu\n", RiskFlagName(k),
                static_cast<unsigned long long>(t.by_risk[k]));
  }
  const double scan = t.scan_seconds > 0 ? t.scan_seconds : 1e-9;
  std::printf("  scan throughput  %.1f MB/s, %.2f M URIs/s per thread (SIMD "
              "scan, Highway target %s)\n",
              t.bytes / 1e6 / scan, t.lines / 1e6 / scan,
              DispatchedTargetName());
  std::printf("  wall time        %.3f s, %.1f MB/s with %zu thread%s "
              "(reading and counting included)\n",
              wall, wall > 0 ? t.bytes / 1e6 / wall : 0.0, opt.threads,
              opt.threads == 1 ? "" : "s");
}

void Progress::Update(const Totals& t, uint64_t done, uint64_t size) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  std::string line = "\r" + std::to_string(t.lines) + " lines";
  char buf[96];
  std::snprintf(buf, sizeof(buf), ", %.1f MB, %.1f MB/s", t.bytes / 1e6,
                secs > 0 ? t.bytes / 1e6 / secs : 0.0);
  line += buf;
  if (t.distinct) line += ", " + std::to_string(t.distinct) + " distinct";
  if (size > 0 && done > 0) {
    const double share = std::min(1.0, static_cast<double>(done) / size);
    const double left = secs * (1 - share) / share;
    const unsigned long long s = static_cast<unsigned long long>(left + 0.5);
    std::snprintf(buf, sizeof(buf), ", %.0f%%, %llu:%02llu left", share * 100,
                  s / 60, s % 60);
    line += buf;
  }
  line += "   ";
  std::fputs(line.c_str(), stderr);
  shown_ = true;
}

std::string NoTargetSummary(const Totals& t) {
  uint64_t all = 0;
  for (uint64_t n : t.no_target) all += n;
  if (all == 0) return {};
  std::string s = ", " + std::to_string(all) + " with no reference (";
  for (size_t k = 0; k < kNoTargetKinds; ++k) {
    if (k > 0) s += ", ";
    s += NoTargetName(static_cast<NoTarget>(k));
    s += ' ';
    s += std::to_string(t.no_target[k]);
  }
  return s + ')';
}

std::string HeldBack(const Options& opt, const Totals& t) {
  if (t.held_back == 0) return "";
  return "; " + std::to_string(t.held_back) + " diagnostic" +
         (t.held_back == 1 ? "" : "s") + " held back (--max-errors=" +
         std::to_string(opt.max_errors) + ")";
}

void PrintSummary(const Options& opt, const Totals& t, bool stopped,
                  const std::string& tail) {
  std::string s = "uriscan: " + std::to_string(t.lines) + " lines, " +
                  std::to_string(t.valid) + " valid, " +
                  std::to_string(t.lines - t.valid) + " invalid";
  const char* sep = " (";
  for (int k = 1; k < kErrorKindCount; ++k) {
    if (t.by_error[k] == 0) continue;
    s += sep;
    s += ErrorKindName(static_cast<ErrorKind>(k));
    s += ' ';
    s += std::to_string(t.by_error[k]);
    sep = ", ";
  }
  if (t.lines != t.valid) s += ')';
  if (opt.lenient) s += ", " + std::to_string(t.repaired) + " repaired";
  s += tail;
  s += HeldBack(opt, t);
  if (stopped) s += "; stopped at the first invalid line (--on-error=fail)";
  std::fprintf(stderr, "%s\n", s.c_str());
}

void Add(const Totals& from, Totals* to) {
  to->lines += from.lines;
  to->valid += from.valid;
  to->bytes += from.bytes;
  for (size_t k = 0; k < from.by_error.size(); ++k)
    to->by_error[k] += from.by_error[k];
  for (size_t k = 0; k < from.by_host.size(); ++k)
    to->by_host[k] += from.by_host[k];
  to->scheme += from.scheme;
  to->authority += from.authority;
  to->userinfo += from.userinfo;
  to->port += from.port;
  to->query += from.query;
  to->fragment += from.fragment;
  to->rewritten += from.rewritten;
  to->unresolved += from.unresolved;
  to->flagged += from.flagged;
  to->extracted += from.extracted;
  to->repaired += from.repaired;
  to->malformed += from.malformed;
  for (size_t k = 0; k < from.no_target.size(); ++k)
    to->no_target[k] += from.no_target[k];
  to->log_lines += from.log_lines;
  for (size_t k = 0; k < from.by_risk.size(); ++k)
    to->by_risk[k] += from.by_risk[k];
  to->scan_seconds += from.scan_seconds;
}


}  // namespace cli
}  // namespace uriscan
