// SPDX-License-Identifier: MIT
// uriscan normalize: each line's normal form under a profile (RFC 3986
// sec. 6); its options, help and run.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    // "\xc2\xa7" is the section sign in UTF-8 (sources stay ASCII).
    "  normalize [--profile=P]     each line's normal form (RFC 3986 "
    "\xc2\xa7" "6);\n"
    "                              P is syntax (\xc2\xa7" "6.2.2), scheme "
    "(default,\n"
    "                              adds \xc2\xa7" "6.2.3), crawler "
    "(adds: no\n"
    "                              fragment, sorted query without tracking,\n"
    "                              session-id or empty parameters, no empty\n"
    "                              query, IPv4 in dotted quads; prints\n"
    "                              NORMALIZED<TAB>ORIGINAL, NORMALIZED\n"
    "                              empty for an invalid line; not the\n"
    "                              16-hex key of dedup --keys and the\n"
    "                              key column) or w3lib (what Scrapy's\n"
    "                              w3lib.url.canonicalize_url returns)\n";

// The normal forms of a chunk's rows, per worker thread (the batch
// allocates from that thread's heap).
thread_local NormalizedBatch normalized_rows;

class NormalizeRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddProfileOptions(app, &profile_);
    AddOnErrorOption(app, &on_error_);
  }

  int Check() override { return CheckProfileOptions(profile_); }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    if (WholeChunk(*c) &&
        (on_error_ != OnError::kFail ||
         !AnyInvalid(c->spans.error_kind.data(), c->spans.size()))) {
      WriteChunk(rows, c);
      return false;
    }
    NormalizeBatch(rows, c->spans, profile_.profile, &normalized_rows,
                   profile_.normalize);
    return true;
  }
  // The records of a whole chunk at once (what Row() writes, row by row):
  // runs of rows that are their own normal form, each ending in a lone
  // "\n", are copied in one piece; only the others are normalized.
  void WriteChunk(const Batch& rows, Chunk* c) {
    thread_local std::vector<uint8_t> as_is;
    CountWholeChunk(c);
    const ComponentSpans& s = c->spans;
    MarkAlreadyNormal(rows, s, profile_.profile, &as_is, profile_.normalize);
    const bool crawler = profile_.profile == Profile::kCrawler;
    const char* data = rows.data;
    std::string& out = c->out;
    const size_t n = s.size();
    for (size_t i = 0; i < n; ++i) {
      if (as_is[i] && !crawler) {
        size_t last = i;
        while (last + 1 < n && as_is[last + 1] &&
               s.uri_begin[last + 1] == s.uri_end[last] + 1)
          ++last;
        out.append(data + s.uri_begin[i], s.uri_end[last] - s.uri_begin[i]);
        c->SpillOut();  // (before a byte is added to a long line: no copy)
        out.push_back('\n');
        i = last;
        continue;
      }
      const std::string_view text(data + s.uri_begin[i],
                                  s.uri_end[i] - s.uri_begin[i]);
      if (s.error_kind[i] != 0) {  // --on-error=keep or skip
        if (W3libForm(s.Row(i, data), c)) continue;
        if (on_error_ == OnError::kKeep) {
          if (crawler) {
            out.push_back('\t');
            AppendPgText(text, &out);
          } else {
            out.append(text);
          }
          out.push_back('\n');
          c->SpillOut();
        }
        continue;
      }
      if (as_is[i]) {
        out.append(text);
      } else {  // normalized in place: a huge line is not held twice
        const size_t begin = out.size();
        (void)Normalize(s.Row(i, data), profile_.profile, &out,
                        profile_.normalize);
        c->totals.rewritten += std::string_view(out).substr(begin) != text;
      }
      c->SpillOut();
      if (crawler) {  // a valid line has no byte that TSV text escapes
        out.push_back('\t');
        out.append(text);
        c->SpillOut();
      }
      out.push_back('\n');
    }
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    const bool crawler = profile_.profile == Profile::kCrawler;
    if (!uri.valid()) {
      c->Diagnose(i, uri.error());
      if (W3libForm(uri, c)) return true;
      return ApplyOnError(on_error_, i, uri, crawler, c);
    }
    const std::string_view normal = normalized_rows.Get(i);
    c->out.append(normal);
    c->totals.rewritten += normal != uri.text();
    c->SpillOut();
    if (crawler) {
      c->out.push_back('\t');
      // PostgreSQL's text format: the line as read may hold a backslash
      // or a TAB (--lenient repairs them in the key only).
      AppendPgText(c->AsRead(i, uri.text()), &c->out);
      c->SpillOut();
    }
    c->out.push_back('\n');
    return true;
  }
  // The w3lib profile's form of an invalid line, which w3lib canonicalizes
  // too ("?a[]=1"): written with its "\n" in place of --on-error's answer
  // (the line's diagnostic stays). False for the other profiles, and for a
  // line w3lib refuses.
  bool W3libForm(const UriReference& uri, Chunk* c) const {
    if (profile_.profile != Profile::kW3lib) return false;
    const size_t begin = c->out.size();
    if (!Normalize(uri, Profile::kW3lib, &c->out)) return false;
    c->totals.rewritten += std::string_view(c->out).substr(begin) != uri.text();
    c->SpillOut();
    c->out.push_back('\n');
    return true;
  }
  std::string SummaryTail(const Totals& t) const override {
    return ", " + std::to_string(t.rewritten) + " rewritten";
  }

 private:
  ProfileOptions profile_;
  OnError on_error_ = OnError::kKeep;
};

}  // namespace

const CommandSpec kNormalizeCommand = {
    "normalize", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); },
    true, true, MakeRun<NormalizeRun>};

}  // namespace cli
}  // namespace uriscan
