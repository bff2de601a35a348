// SPDX-License-Identifier: MIT
// The man pages and shell completions the command writes: each page is its
// command's --help, and the completions offer what the options parser
// takes.
#include <sys/stat.h>

#include <set>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {
namespace {

const char* const kCommandNames[] = {"extract", "parse",     "params",
                                     "validate", "stats",    "audit",
                                     "normalize", "resolve", "dedup",
                                     "state"};

// The no-fill block of a page's DESCRIPTION, with roff's escapes undone:
// what the reader sees.
std::string HelpOfPage(const std::string& page) {
  const size_t pp = page.find(".PP\n.nf\n");
  const size_t fi = page.find(".fi\n.SH SEE ALSO", pp);
  if (pp == std::string::npos || fi == std::string::npos) return "no block";
  const std::string block = page.substr(pp + 8, fi - pp - 8);
  std::string text;
  for (size_t i = 0; i < block.size(); ++i) {
    if (block.compare(i, 2, "\\e") == 0) {
      text += '\\';
      ++i;
    } else if (block.compare(i, 2, "\\-") == 0) {
      text += '-';
      ++i;
    } else if (block.compare(i, 2, "\\&") == 0) {
      ++i;
    } else {
      text += block[i];
    }
  }
  return text;
}

TEST_F(CliTest, ManPagesAreTheHelpText) {
  ASSERT_EQ(Run("--man-pages=" + dir_).status, 0);
  // The pages the build wrote and installs are these too.
  const std::string built =
      std::string(URISCAN_CLI).substr(0, std::string(URISCAN_CLI).rfind('/')) +
      "/share/man1/";
  const Result general = Run("--help");
  const std::string page = Slurp(Path("uriscan.1"));
  EXPECT_EQ(HelpOfPage(page), general.out);
  EXPECT_EQ(Slurp(built + "uriscan.1"), page);
  for (const char* name : kCommandNames) {
    const std::string file = std::string("uriscan-") + name + ".1";
    const std::string p = Slurp(Path(file.c_str()));
    EXPECT_EQ(HelpOfPage(p), Run(std::string(name) + " --help").out) << name;
    EXPECT_NE(p.find(".SH NAME\nuriscan\\-" + std::string(name) + " \\- "),
              std::string::npos)
        << p.substr(0, 200);
    EXPECT_EQ(Slurp(built + file), p) << file;
    EXPECT_NE(page.find("\\fBuriscan\\-" + std::string(name) + "\\fR(1)"),
              std::string::npos) << name;
  }
  // groff reads every page without a warning.
  if (std::system("command -v groff > /dev/null") == 0) {
    const Result r = RunShell("for f in '" + dir_ + "'/*.1; do groff -man "
                              "-Tutf8 -ww -z \"$f\"; done > '" + dir_ +
                              "/stdout' 2> '" + dir_ + "/stderr'", dir_);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
  }
  EXPECT_EQ(Run("--man-pages=/nonexistent/dir").status, 2);
  // A link planted in a page's place is refused, its target untouched.
  ASSERT_EQ(mkdir(Path("linked").c_str(), 0755), 0);
  ASSERT_EQ(symlink(Path("elsewhere").c_str(), Path("linked/uriscan.1").c_str()),
            0);
  EXPECT_EQ(Run("--man-pages=" + dir_ + "/linked").status, 2);
  EXPECT_EQ(access(Path("elsewhere").c_str(), F_OK), -1);
  // A directory that is not there yet is made (one level).
  EXPECT_EQ(Run("--man-pages=" + dir_ + "/new").status, 0);
  EXPECT_EQ(Slurp(Path("new/uriscan.1")), page);
}

// Runs the bash completion with COMP_WORDS set to `words` (the cursor on
// the last) and returns COMPREPLY, one entry a line.
class CompletionTest : public CliTest {
 protected:
  std::string Complete(const std::vector<std::string>& words) {
    std::string list;
    for (const std::string& w : words) list += " '" + w + "'";
    Write(Path("complete.sh"),
          "source '" + Path("uriscan.bash") + "'\n"
          "COMP_WORDS=(" + list + ")\n"
          "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
          "_uriscan\n"
          "printf '%s\\n' \"${COMPREPLY[@]}\" | sort\n");
    return RunShell("bash '" + Path("complete.sh") + "' > '" + dir_ +
                        "/stdout' 2> '" + dir_ + "/stderr'",
                    dir_)
        .out;
  }
};

TEST_F(CompletionTest, BashCompletesCommandsOptionsAndValues) {
  const Result script = Run("--completion=bash");
  ASSERT_EQ(script.status, 0);
  Write(Path("uriscan.bash"), script.out);
  EXPECT_EQ(Complete({"uriscan", "par"}), "params\nparse\n");
  EXPECT_EQ(Complete({"uriscan", "parse", "--col"}), "--columns=\n");
  EXPECT_EQ(Complete({"uriscan", "dedup", "--sh"}), "--shards=\n");
  EXPECT_EQ(Complete({"uriscan", "state", "--up"}), "--upgrade\n");
  // A value, where '=' breaks words (bash's default) and where it does not.
  EXPECT_EQ(Complete({"uriscan", "parse", "--columns", "=", "host,ho"}),
            "host,host\nhost,host_nowww\nhost,host_type\n");
  EXPECT_EQ(Complete({"uriscan", "parse", "--columns=ho"}),
            "--columns=host\n--columns=host_nowww\n--columns=host_type\n");
  EXPECT_EQ(Complete({"uriscan", "dedup", "--profile", "=", "c"}),
            "crawler\n");
  EXPECT_EQ(Complete({"uriscan", "extract", "--from=c"}),
            "--from=clf\n--from=combined\n--from=csv\n");
  EXPECT_EQ(Complete({"uriscan", "validate", "--on-error", "="}),
            "fail\nkeep\nskip\n");
  // Every option a command's help shows in its entries is offered, and
  // every option offered is in its help.
  for (const char* name : kCommandNames) {
    const std::string help = Run(std::string(name) + " --help").out;
    const std::string offered = Complete({"uriscan", name, "--"});
    // Each "[--option" of the help's entries.
    for (size_t at = help.find("[--"); at != std::string::npos;
         at = help.find("[--", at + 1)) {
      size_t end = at + 3;
      while (end < help.size() &&
             ((help[end] >= 'a' && help[end] <= 'z') || help[end] == '-'))
        ++end;
      const std::string option = help.substr(at + 1, end - at - 1);
      EXPECT_NE(offered.find(option), std::string::npos)
          << name << ": " << option;
    }
    std::istringstream lines(offered);
    for (std::string option; std::getline(lines, option);) {
      if (!option.empty() && option.back() == '=') option.pop_back();
      EXPECT_NE(help.find(option), std::string::npos) << name << ": " << option;
    }
  }
}

TEST_F(CliTest, ZshCompletionIsAScriptZshReads) {
  const Result script = Run("--completion=zsh");
  ASSERT_EQ(script.status, 0);
  EXPECT_EQ(script.out.rfind("#compdef uriscan\n", 0), 0u);
  for (const char* name : kCommandNames)
    EXPECT_NE(script.out.find(std::string(" ") + name), std::string::npos);
  EXPECT_NE(script.out.find("host_nowww"), std::string::npos);
  if (std::system("command -v zsh > /dev/null") == 0) {
    Write(Path("_uriscan"), script.out);
    EXPECT_EQ(RunShell("zsh -n '" + Path("_uriscan") + "' > '" + dir_ +
                           "/stdout' 2> '" + dir_ + "/stderr'",
                       dir_)
                  .status,
              0);
  }
  const Result other = Run("--completion=tcsh");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("--completion takes bash, zsh or fish"),
            std::string::npos);
}

// fish (installed by tools/setup.sh: a missing one is a failure) completes
// commands, each command's options, their values and column lists.
TEST_F(CliTest, FishCompletesCommandsOptionsAndValues) {
  const Result script = Run("--completion=fish");
  ASSERT_EQ(script.status, 0);
  Write(Path("uriscan.fish"), script.out);
  ASSERT_EQ(std::system("command -v fish > /dev/null"), 0)
      << "no fish (Debian's package fish)";
  const auto complete = [&](const std::string& line) {
    return RunShell("fish -c \"source '" + Path("uriscan.fish") +
                        "'; complete -C '" + line + "'\" > '" + dir_ +
                        "/stdout' 2> '" + dir_ + "/stderr'",
                    dir_)
        .out;
  };
  EXPECT_EQ(complete("uriscan par"), "params\nparse\n");
  EXPECT_EQ(complete("uriscan normalize --prof"), "--profile\n");
  EXPECT_EQ(complete("uriscan normalize --profile="),
            "--profile=crawler\n--profile=scheme\n--profile=syntax\n"
            "--profile=w3lib\n");
  EXPECT_EQ(complete("uriscan parse --columns=host,sch"),
            "--columns=host,scheme\n");
  EXPECT_EQ(complete("uriscan dedup --sta"), "--state\n");
  EXPECT_EQ(complete("uriscan validate --sta"), "");  // dedup's alone
}

}  // namespace
}  // namespace uriscan_cli_test
