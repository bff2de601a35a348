// SPDX-License-Identifier: MIT
// The commands that rewrite each URI reference: normalize (RFC 3986 sec. 6)
// and resolve (sec. 5.2); their options, help and run.
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kNormalizeHelp[] =
    // "\xc2\xa7" is the section sign in UTF-8 (sources stay ASCII).
    "  normalize [--profile=P]     each line's normal form (RFC 3986 "
    "\xc2\xa7" "6);\n"
    "                              P is syntax (\xc2\xa7" "6.2.2), scheme "
    "(default,\n"
    "                              adds \xc2\xa7" "6.2.3) or crawler "
    "(adds: no\n"
    "                              fragment, sorted query without tracking\n"
    "                              or empty parameters, no empty query;\n"
    "                              prints KEY<TAB>ORIGINAL, KEY empty for\n"
    "                              an invalid line)\n";

constexpr char kResolveHelp[] =
    "  resolve --base=URI          each line resolved against URI "
    "(\xc2\xa7" "5.2)\n"
    "      [--nonstrict]           \"http:g\" is relative to an http base\n"
    "      [--draft-1997]          the 1997 draft's algorithm\n"
    "                              (draft-fielding-uri-syntax-01)\n"
    "      [--above-root=clamp|keep|reject]  \"..\" above the root\n"
    "                              (default clamp, as RFC 3986)\n";

void AddNormalizeOptions(CLI::App* app, Options* opt) {
  AddProfileOptions(app, opt);
  AddOnErrorOption(app, opt);
}

void AddResolveOptions(CLI::App* app, Options* opt) {
  AddValueOption(app, "--base", "URI", [opt](const std::string& v) {
    opt->has_base = true;
    opt->base_text = v;
  });
  AddFlag(app, "--nonstrict",
                         [opt] { opt->resolve.nonstrict = true; });
  AddFlag(app, "--draft-1997",
                         [opt] { opt->resolve.draft_1997 = true; });
  AddValueOption(app, "--above-root", "clamp|keep|reject",
                 [opt](const std::string& v) {
    if (v == "clamp") opt->resolve.above_root = AboveRoot::kClamp;
    else if (v == "keep") opt->resolve.above_root = AboveRoot::kKeep;
    else if (v == "reject") opt->resolve.above_root = AboveRoot::kReject;
    else throw UsageError(Allowed("--above-root", "clamp, keep or reject", v));
  });
  AddOnErrorOption(app, opt);
}

int CheckResolve(Options* opt) {
  if (!opt->has_base) return Usage("resolve needs --base=URI");
  return CheckBase(opt);
}

// A line that has no rewrite (invalid, or a resolution --above-root=reject
// refuses), its diagnostic made, as --on-error says: false to stop (fail);
// skip drops it; keep writes the line as it was. An over-long one is not
// held in memory (whatever the chunking), so an empty line stands in for
// it. With `empty_key`, the crawler profile's KEY<TAB>ORIGINAL gets an
// empty KEY, so every line has the same two columns.
bool ApplyOnError(const Options& opt, const UriReference& uri, bool empty_key,
                  Chunk* c) {
  if (opt.on_error == OnError::kFail) return false;
  if (opt.on_error == OnError::kSkip) return true;
  if (empty_key) c->out.push_back('\t');
  if (uri.error().kind != ErrorKind::kTooLong) c->out.append(uri.text());
  c->out.push_back('\n');
  return true;
}

// The normal forms of a chunk's rows, per worker thread (the batch
// allocates from that thread's heap).
thread_local NormalizedBatch normalized_rows;

// normalize: each line's normal form under --profile (RFC 3986 sec. 6).
class NormalizeRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    NormalizeBatch(rows, c->spans, opt_.profile, &normalized_rows,
                   opt_.normalize);
    return true;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (!uri.valid()) {
      c->Diagnose(i, uri.error());
      return ApplyOnError(opt_, uri, opt_.profile == Profile::kCrawler, c);
    }
    const std::string_view normal = normalized_rows.Get(i);
    c->out.append(normal);
    c->totals.rewritten += normal != uri.text();
    if (opt_.profile == Profile::kCrawler) {
      c->out.push_back('\t');
      c->out.append(uri.text());
    }
    c->out.push_back('\n');
    return true;
  }
};

// The text of the current document for a 1997 same-document reference: the
// base without its fragment, then the reference's fragment.
void AppendSameDocument(const UriReference& base, std::string_view fragment,
                        std::string* out) {
  const std::string_view text = base.text();
  const auto base_fragment = base.fragment();
  out->append(base_fragment ? text.substr(0, text.size() -
                                                 base_fragment->size() - 1)
                            : text);
  out->append(fragment);
}

// The target URIs of a chunk's rows, per worker thread.
thread_local ResolvedBatch resolved_rows;

// resolve: each line resolved against --base (RFC 3986 sec. 5.2).
class ResolveRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  // Every row at once, most of them by ResolveBatch's fast path (a path
  // with no dot segment is the base's prefix plus its own bytes).
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    ResolveBatch(opt_.base, rows, c->spans, opt_.resolve, false,
                 &resolved_rows);
    return true;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (!uri.valid()) {
      c->Diagnose(i, uri.error());
      return ApplyOnError(opt_, uri, false, c);
    }
    const ResolveStatus rs = resolved_rows.status[i];
    if (rs == ResolveStatus::kOk) {
      c->out.append(resolved_rows.Get(i));
    } else if (rs == ResolveStatus::kSameDocument) {
      AppendSameDocument(opt_.base, resolved_rows.Get(i), &c->out);
    } else {  // only kAboveRoot can be left
      c->diagnostics.push_back({i, 1, ResolveStatusName(rs),
                                "a \"..\" segment climbs above the root "
                                "(--above-root=reject)"});
      ++c->totals.unresolved;
      return ApplyOnError(opt_, uri, false, c);
    }
    c->out.push_back('\n');
    return true;
  }
};

}  // namespace

const CommandSpec kNormalizeCommand = {"normalize", Command::kNormalize,
                                       kNormalizeHelp, AddNormalizeOptions,
                                       nullptr, MakeRun<NormalizeRun>};
const CommandSpec kResolveCommand = {"resolve", Command::kResolve,
                                     kResolveHelp, AddResolveOptions,
                                     CheckResolve, MakeRun<ResolveRun>};

}  // namespace cli
}  // namespace uriscan
