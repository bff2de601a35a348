// SPDX-License-Identifier: MIT
// The commands that report on each URI reference as it is written: parse
// (its components, DESIGN.md sec. 5), validate, stats and audit (the risks
// of RFC 3986 sec. 7); their options and help.
#include <CLI/CLI.hpp>

#include <string>

#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kParseHelp[] =
    "  parse [--format=jsonl|tsv]  one record per line with its components;\n"
    "                              jsonl adds \"risks\":[...] (see audit)\n"
    "      [--columns=LIST]        tsv: these columns, in this order, from\n"
    "                              line, valid, scheme, userinfo, host,\n"
    "                              port, path, query, fragment, host_type,\n"
    "                              error and the derived ones:\n"
    "                              registrable_domain, public_suffix (of\n"
    "                              the lower-cased host, by the Public\n"
    "                              Suffix List; \\N for an IP address),\n"
    "                              surt (the SURT key, com,example)/a?b=1),\n"
    "                              key (as dedup --keys under --profile),\n"
    "                              normalized (under --profile)\n"
    "      [--psl=FILE]            another Public Suffix List than libpsl's\n";

constexpr char kValidateHelp[] =
    "  validate                    diagnostics for invalid lines only;\n"
    "                              exit 1 if there is any\n";

constexpr char kStatsHelp[] =
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n";

constexpr char kAuditHelp[] =
    "  audit                       LINE<TAB>FLAGS per line: the risks of\n"
    "                              RFC 3986 section 7, comma-separated in\n"
    "                              this order (empty when none; 'invalid'\n"
    "                              for an invalid line): credentials,\n"
    "                              password, userinfo-host-like,\n"
    "                              ip-rare-form, ip-loopback, ip-private,\n"
    "                              ip-link-local, ip-unspecified,\n"
    "                              ip-embedded-ipv4, host-pct-encoded,\n"
    "                              encoded-delimiter, double-encoded,\n"
    "                              encoded-control, dot-segment-above-root,\n"
    "                              encoded-dot-segment, script-scheme,\n"
    "                              port-out-of-range\n";

void AddParseOptions(CLI::App* app, Options* opt) {
  AddValueOption(app, "--format", "jsonl|tsv", [opt](const std::string& v) {
    if (v == "jsonl") opt->format = Format::kJsonl;
    else if (v == "tsv") opt->format = Format::kTsv;
    else throw UsageError(Allowed("--format", "jsonl or tsv", v));
  });
  AddValueOption(app, "--columns", "LIST", [opt](const std::string& v) {
    std::string unknown;
    if (!ParseColumns(v, &opt->columns, &unknown))
      throw UsageError(Allowed("--columns", ColumnNames().c_str(), unknown));
  });
  AddValueOption(app, "--psl", "FILE",
                 [opt](const std::string& v) { opt->psl_file = v; });
  // --columns=key,normalized are under a profile.
  AddProfileOptions(app, opt);
}

int CheckParse(Options* opt) {
  if (!opt->columns.empty() && opt->format != Format::kTsv)
    return Usage("--columns needs --format=tsv");
  return -1;
}

void AddNoOptions(CLI::App*, Options*) {}

}  // namespace

const CommandSpec kParseCommand = {"parse", Command::kParse, kParseHelp,
                                   AddParseOptions, CheckParse};
const CommandSpec kValidateCommand = {"validate", Command::kValidate,
                                      kValidateHelp, AddNoOptions, nullptr};
const CommandSpec kStatsCommand = {"stats", Command::kStats, kStatsHelp,
                                   AddNoOptions, nullptr};
const CommandSpec kAuditCommand = {"audit", Command::kAudit, kAuditHelp,
                                   AddNoOptions, nullptr};

}  // namespace cli
}  // namespace uriscan
