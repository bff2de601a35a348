// SPDX-License-Identifier: MIT
// uriscan extract: the URI references in logs and free text (DESIGN.md
// sec. 8), its options and their checks.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  extract [--from=F]          the URI references in the input, one per\n"
    "                              line, as written; F is text (default:\n"
    "                              RFC 3986 Appendix C), clf or combined\n"
    "                              (web server logs), tsv or csv (RFC 4180),\n"
    "                              jsonl\n"
    "      [--field=X]             clf, combined: target (default) or\n"
    "                              referer; tsv, csv: a column number (from\n"
    "                              1, default 1) or a name in the header row;\n"
    "                              jsonl: a top-level key (required)\n"
    "      [--base=URI]            clf, combined: resolve targets against URI\n"
    "      [--with-line]           each reference as LINE<TAB>REFERENCE\n";

void AddOptions(CLI::App* app, Options* opt) {
  AddValueOption(app, "--from", "F", [opt](const std::string& v) {
    if (!ParseLogFormat(v, &opt->extract.from))
      throw UsageError(
          Allowed("--from", "text, clf, combined, tsv, csv or jsonl", v));
  });
  AddValueOption(app, "--field", "X", [opt](const std::string& v) {
    if (v.empty()) throw UsageError("--field takes a name or number");
    opt->field = v;
  });
  AddValueOption(app, "--base", "URI", [opt](const std::string& v) {
    opt->has_base = true;
    opt->base_text = v;
  });
  AddFlag(app, "--with-line",
                         [opt] { opt->extract.with_line = true; });
}

// --field and --base for the --from given.
int Check(Options* opt) {
  ExtractOptions& x = opt->extract;
  const std::string& f = opt->field;
  switch (x.from) {
    case LogFormat::kText:
      if (!f.empty()) return Usage("--from=text takes no --field");
      break;
    case LogFormat::kClf:
    case LogFormat::kCombined:
      if (f == "referer" && x.from == LogFormat::kClf)
        return Usage("--field=referer needs --from=combined (the Common Log "
                     "Format has no Referer)");
      if (!f.empty() && f != "target" && f != "referer")
        return Usage(Allowed("--field", "target or referer", f));
      x.referer = f == "referer";
      break;
    case LogFormat::kTsv:
    case LogFormat::kCsv:
      if (!f.empty() && f.find_first_not_of("0123456789") == std::string::npos) {
        const unsigned long n = std::strtoul(f.c_str(), nullptr, 10);
        if (n == 0) return Usage("--field numbers columns from 1");
        x.column = n - 1;
      } else if (!f.empty()) {
        opt->header_field = true;
        x.field_name = f;
      }
      break;
    case LogFormat::kJsonl:
      if (f.empty()) return Usage("--from=jsonl needs --field=KEY");
      x.field_name = f;
      break;
  }
  if (opt->has_base && x.from != LogFormat::kClf &&
      x.from != LogFormat::kCombined)
    return Usage("--base applies to --from=clf or --from=combined");
  if (opt->has_base && x.referer)
    return Usage("--base applies to request targets, not to --field=referer");
  if (!opt->has_base) return -1;
  const int status = CheckBase(opt);
  if (status >= 0) return status;
  x.base = &opt->base;
  return -1;
}

}  // namespace

const CommandSpec kExtractCommand = {"extract", Command::kExtract, kHelp,
                                     AddOptions, Check};

}  // namespace cli
}  // namespace uriscan
