// SPDX-License-Identifier: MIT
// The commands that rewrite each URI reference: normalize (RFC 3986 sec. 6)
// and resolve (sec. 5.2); their options and help.
#include <CLI/CLI.hpp>

#include <string>

#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kNormalizeHelp[] =
    "  normalize [--profile=P]     each line's normal form (RFC 3986 §6);\n"
    "                              P is syntax (§6.2.2), scheme (default,\n"
    "                              adds §6.2.3) or crawler (adds: no\n"
    "                              fragment, sorted query without tracking\n"
    "                              or empty parameters, no empty query;\n"
    "                              prints KEY<TAB>ORIGINAL, KEY empty for\n"
    "                              an invalid line)\n";

constexpr char kResolveHelp[] =
    "  resolve --base=URI          each line resolved against URI (§5.2)\n"
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

}  // namespace

const CommandSpec kNormalizeCommand = {"normalize", Command::kNormalize,
                                       kNormalizeHelp, AddNormalizeOptions,
                                       nullptr};
const CommandSpec kResolveCommand = {"resolve", Command::kResolve,
                                     kResolveHelp, AddResolveOptions,
                                     CheckResolve};

}  // namespace cli
}  // namespace uriscan
