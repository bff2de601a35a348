// SPDX-License-Identifier: MIT
// What the command's end-to-end tests share: a fixture that runs
// `uriscan ARGS` in a temporary directory and keeps its exit status, stdout
// and stderr.
#ifndef URISCAN_TESTS_CLI_CLI_TEST_H_
#define URISCAN_TESTS_CLI_CLI_TEST_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/files.h"

namespace uriscan_cli_test {
struct Result {
  int status = -1;
  std::string out, err;
};

using uriscan::test_files::Slurp;
using uriscan::test_files::Write;

// Runs the shell command `cmd`, which writes into `dir`/stdout and
// `dir`/stderr, and keeps its exit status and what it wrote.
inline Result RunShell(const std::string& cmd, const std::string& dir) {
  const int raw = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = Slurp(dir + "/stdout");
  r.err = Slurp(dir + "/stderr");
  return r;
}

// Runs `sh -c SCRIPT` in the test's directory, with URISCAN for the
// command, under `timeout SECONDS`: the status is 124 when it timed out.
inline Result Sh(const std::string& dir, const std::string& script, int seconds) {
  return RunShell("cd '" + dir + "' && URISCAN='" + URISCAN_CLI +
                      "' timeout " + std::to_string(seconds) + " sh -c '" +
                      script + "' > stdout 2> stderr",
                  dir);
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uriscan_cli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string Path(const char* name) const { return dir_ + "/" + name; }
  // Runs `uriscan ARGS` with `input` on stdin.
  Result Run(const std::string& args, const std::string& input = "") {
    Write(Path("stdin"), input);
    return RunShell(std::string(URISCAN_CLI) + " " + args + " < '" +
                        Path("stdin") + "' > '" + Path("stdout") + "' 2> '" +
                        Path("stderr") + "'",
                    dir_);
  }
  std::string dir_;
};

inline size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline const std::string kTricky =
    std::string(URISCAN_SOURCE_DIR) + "/corpus/handmade/tricky.txt";

}  // namespace uriscan_cli_test

#endif  // URISCAN_TESTS_CLI_CLI_TEST_H_
