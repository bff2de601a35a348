// SPDX-License-Identifier: MIT
// The --help text as man pages (uriscan --man-pages=DIR) and the command
// line as shell completions (uriscan --completion=bash|zsh|fish): made from
// the same tables as the help and the option parser, so they never
// disagree.
#include "src/cli/help_out.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "uriscan/version.h"

namespace uriscan {
namespace cli {
namespace {

// The values an option takes, where they are a fixed list.
struct Values {
  const char* option;
  std::vector<std::string> values;
};

std::vector<Values> OptionValues() {
  std::vector<std::string> columns;
  const std::string names = ColumnNames();  // "a, b, param:NAME, ..."
  for (size_t pos = 0; pos < names.size();) {
    const size_t end = std::min(names.find(", ", pos), names.size());
    std::string n = names.substr(pos, end - pos);
    if (const size_t colon = n.find(':'); colon != std::string::npos)
      n.resize(colon + 1);  // "param:NAME": the prefix
    columns.push_back(n);
    pos = end + 2;
  }
  return {{"--columns", columns},
          {"--profile", {"syntax", "scheme", "crawler", "w3lib"}},
          {"--from", {"text", "clf", "combined", "tsv", "csv", "jsonl"}},
          {"--on-error", {"keep", "skip", "fail"}},
          {"--line-numbers", {"file", "global"}},
          {"--decode", {"utf8", "bytes"}}};
}

// The words of `words`, one space between them.
std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Escapes text for a roff no-fill block: a backslash as \e, and a line
// that starts with '.' or '\'' behind \&, so every line shows as written.
std::string Roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";  // a minus sign, as in an option's name
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// The summary of a command: its help entry's first line, after the usage.
std::string Summary(const CommandSpec& c) {
  const std::string help = c.help();
  std::string first = help.substr(0, help.find('\n'));
  first = first.size() > 30 ? first.substr(30) : std::string(c.name);
  while (!first.empty() && (first.back() == ';' || first.back() == ',' ||
                            first.back() == ':' || first.back() == ' '))
    first.pop_back();
  return first;
}

std::string Page(const std::string& name, const std::string& summary,
                 const std::string& synopsis, const std::string& invocation,
                 const std::string& help, const std::string& see_also) {
  std::string upper;
  for (const char c : name) upper += static_cast<char>(std::toupper(c));
  return ".TH " + upper + " 1 \"\" \"uriscan " URISCAN_VERSION_STRING
         "\" \"User Commands\"\n"
         ".SH NAME\n" + Roff(name) + " \\- " + Roff(summary) + "\n"
         ".SH SYNOPSIS\n.nf\n" + Roff(synopsis) + "\n.fi\n"
         ".SH DESCRIPTION\n"
         "The text of \\fB" + Roff(invocation) + "\\fR:\n"
         ".PP\n.nf\n" + Roff(help) + ".fi\n"
         ".SH SEE ALSO\n" + see_also + "\n";
}

// Replaces the page at `path` (each build writes them again); a link in
// its place is an error, never followed.
bool WriteFile(const std::string& path, const std::string& text,
               std::string* error) {
  const int fd = open(path.c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                      0644);
  size_t done = 0;
  while (fd >= 0 && done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = fd >= 0 && done == text.size();
  if (!ok) *error = "cannot write " + path + ": " + std::strerror(errno);
  if (fd >= 0 && close(fd) != 0 && ok) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return ok;
}

}  // namespace

std::string ManPage(const CommandSpec* spec) {
  std::string see_also;
  for (const CommandSpec* c : Commands()) {
    if (c == spec) continue;
    if (!see_also.empty()) see_also += ",\n";
    see_also += "\\fBuriscan\\-" + Roff(c->name) + "\\fR(1)";
  }
  if (!spec) {
    return Page("uriscan", "exact RFC 3986 URI scanning for batches",
                "uriscan COMMAND [OPTIONS] [FILE...]", "uriscan --help",
                GeneralHelp(), see_also);
  }
  see_also = "\\fBuriscan\\fR(1),\n" + see_also;
  return Page(std::string("uriscan-") + spec->name, Summary(*spec),
              std::string("uriscan ") + spec->name + " " + spec->usage,
              std::string("uriscan ") + spec->name + " --help",
              CommandHelp(*spec), see_also);
}

bool WriteManPages(const std::string& dir, std::string* error) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = "cannot make " + dir + ": " + std::strerror(errno);
    return false;
  }
  if (!WriteFile(dir + "/uriscan.1", ManPage(nullptr), error)) return false;
  for (const CommandSpec* c : Commands()) {
    if (!WriteFile(dir + "/uriscan-" + c->name + ".1", ManPage(c), error))
      return false;
  }
  return true;
}

std::string Completion(std::string_view shell) {
  std::vector<std::string> names;
  for (const CommandSpec* c : Commands()) names.emplace_back(c->name);
  const std::string commands = Join(names);
  const std::vector<Values> values = OptionValues();
  if (shell == "bash") {
    std::string s =
        "# bash completion for uriscan (uriscan --completion=bash)\n"
        "_uriscan() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= words\n"
        "  [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "  if [ \"$COMP_CWORD\" -le 1 ]; then\n"
        "    COMPREPLY=($(compgen -W \"" + commands +
        " --help --version\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  # --opt=VALUE: one word, or three where '=' breaks words.\n"
        "  if [ \"$cur\" = \"=\" ]; then opt=$prev; cur=\n"
        "  elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
        "    opt=${COMP_WORDS[COMP_CWORD-2]}\n"
        "  elif [[ $cur == --*=* ]]; then opt=${cur%%=*}; cur=${cur#*=}; fi\n"
        "  if [ -n \"$opt\" ]; then\n"
        "    local list= before=\n"
        "    case $opt in\n";
    for (const Values& v : values) {
      s += std::string("      ") + v.option + ") list=\"" + Join(v.values) +
           "\" ;;\n";
    }
    s += "    esac\n"
         "    # A list (--columns=a,b): the names after the last comma.\n"
         "    [ \"$opt\" = --columns ] && before=${cur%\"${cur##*,}\"}\n"
         "    local prefix=$before\n"
         "    [[ ${COMP_WORDS[COMP_CWORD]} == --*=* ]] && prefix=$opt=$before\n"
         "    if [ -n \"$list\" ]; then\n"
         "      COMPREPLY=($(compgen -P \"$prefix\" -W \"$list\" -- "
         "\"${cur##*,}\"))\n"
         "      compopt -o nospace 2>/dev/null\n"
         "    else\n"
         "      COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    fi\n"
         "    return\n"
         "  fi\n"
         "  if [[ $cur != -* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); "
         "return; fi\n"
         "  local options=\n"
         "  case ${COMP_WORDS[1]} in\n";
    for (const CommandSpec* c : Commands()) {
      s += std::string("    ") + c->name + ") options=\"";
      s += Join(OptionNames(*c));
      s += "\" ;;\n";
    }
    s += "  esac\n"
         "  COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  # An option that takes a value ends in '=': no space after it.\n"
         "  [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null\n"
         "  return 0\n"
         "}\n"
         "complete -o default -F _uriscan uriscan\n";
    return s;
  }
  if (shell == "zsh") {
    std::string s =
        "#compdef uriscan\n"
        "# zsh completion for uriscan (uriscan --completion=zsh)\n"
        "_uriscan() {\n"
        "  local -a options\n"
        "  if (( CURRENT == 2 )); then\n"
        "    compadd -- " + commands + " --help --version\n"
        "    return\n"
        "  fi\n"
        "  case $words[CURRENT] in\n";
    for (const Values& v : values) {
      s += std::string("    ") + v.option + "=*)\n";
      s += std::string("      compset -P '") +
           (std::string_view(v.option) == "--columns" ? "*[=,]" : "*=") +
           "'\n      compadd -S '' -- " + Join(v.values) +
           "\n      return ;;\n";
    }
    s += "    -*)\n"
         "      case $words[2] in\n";
    for (const CommandSpec* c : Commands()) {
      s += std::string("        ") + c->name + ") options=(";
      s += Join(OptionNames(*c));
      s += ") ;;\n";
    }
    s += "      esac\n"
         "      local -a flags valued\n"
         "      flags=(${options:#*=})\n"
         "      valued=(${${(M)options:#*=}%=})\n"
         "      compadd -- $flags\n"
         "      compadd -S '=' -- $valued\n"
         "      return ;;\n"
         "  esac\n"
         "  _files\n"
         "}\n"
         "_uriscan \"$@\"\n";
    return s;
  }
  if (shell == "fish") {
    // Each option as fish knows it: -l NAME (-r when it takes a value),
    // the values it takes, a list of column names after commas.
    std::string s =
        "# fish completion for uriscan (uriscan --completion=fish)\n"
        "function __uriscan_columns\n"
        "    printf '%s\\n' ";
    for (const Values& v : values)
      if (std::string_view(v.option) == "--columns") s += Join(v.values);
    s += "\nend\n"
         "complete -c uriscan -n __fish_use_subcommand -f -a '" + commands +
         "'\n"
         "complete -c uriscan -n __fish_use_subcommand -f -l help -l version\n";
    for (const CommandSpec* c : Commands()) {
      for (std::string name : OptionNames(*c)) {
        const bool valued = !name.empty() && name.back() == '=';
        if (valued) name.pop_back();
        s += std::string("complete -c uriscan -n '__fish_seen_subcommand_from ") +
             c->name + "' -l " + name.substr(2);
        if (valued) s += " -r";
        for (const Values& v : values) {
          if (name != v.option) continue;
          s += name == "--columns"
                   ? " -f -a '(__fish_complete_list , __uriscan_columns)'"
                   : " -f -a '" + Join(v.values) + "'";
        }
        s += "\n";
      }
    }
    return s;
  }
  return "";
}

}  // namespace cli
}  // namespace uriscan
