// SPDX-License-Identifier: MIT
// uriscan resolve: each line resolved against a base URI (RFC 3986
// sec. 5.2); its options, help and run.
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

#include "src/cli/command_run.h"
#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    // "\xc2\xa7" is the section sign in UTF-8 (sources stay ASCII).
    "  resolve --base=URI          each line resolved against URI "
    "(\xc2\xa7" "5.2)\n"
    "      [--nonstrict]           \"http:g\" is relative to an http base\n"
    "      [--draft-1997]          the 1997 draft's algorithm\n"
    "                              (draft-fielding-uri-syntax-01)\n"
    "      [--above-root=clamp|keep|reject]  \"..\" above the root\n"
    "                              (default clamp, as RFC 3986)\n";

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

class ResolveRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddBaseOption(app, &base_);
    AddFlag(app, "--nonstrict", [this] { resolve_.nonstrict = true; });
    AddFlag(app, "--draft-1997", [this] { resolve_.draft_1997 = true; });
    AddValueOption(app, "--above-root", "clamp|keep|reject",
                   [this](const std::string& v) {
      if (v == "clamp") resolve_.above_root = AboveRoot::kClamp;
      else if (v == "keep") resolve_.above_root = AboveRoot::kKeep;
      else if (v == "reject") resolve_.above_root = AboveRoot::kReject;
      else throw UsageError(
          Allowed("--above-root", "clamp, keep or reject", v));
    });
    AddOnErrorOption(app, &on_error_);
  }
  int Check() override {
    if (!base_.given) return Usage("resolve needs --base=URI");
    return CheckBase(&base_);
  }

  // Every row at once, most of them by ResolveBatch's fast path (a path
  // with no dot segment is the base's prefix plus its own bytes).
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    ResolveBatch(base_.uri, rows, c->spans, resolve_, false, &resolved_rows);
    return true;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (!uri.valid()) {
      c->Diagnose(i, uri.error());
      return ApplyOnError(on_error_, i, uri, false, c);
    }
    const ResolveStatus rs = resolved_rows.status[i];
    if (rs == ResolveStatus::kOk) {
      c->out.append(resolved_rows.Get(i));
    } else if (rs == ResolveStatus::kSameDocument) {
      AppendSameDocument(base_.uri, resolved_rows.Get(i), &c->out);
    } else {  // only kAboveRoot can be left
      c->diagnostics.push_back({i, 1, ResolveStatusName(rs),
                                "a \"..\" segment climbs above the root "
                                "(--above-root=reject)"});
      ++c->totals.unresolved;
      return ApplyOnError(on_error_, i, uri, false, c);
    }
    c->out.push_back('\n');
    return true;
  }
  std::string SummaryTail(const Totals& t) const override {
    if (!t.unresolved) return {};
    return ", " + std::to_string(t.unresolved) +
           " above the root (not resolved)";
  }

 private:
  BaseOption base_;
  ResolveOptions resolve_;
  OnError on_error_ = OnError::kKeep;
};

}  // namespace

const CommandSpec kResolveCommand = {
    "resolve", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); },
    true, true, MakeRun<ResolveRun>};

}  // namespace cli
}  // namespace uriscan
