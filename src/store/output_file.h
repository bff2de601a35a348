// SPDX-License-Identifier: MIT
// `dedup --output=FILE`: the run's lines go to a temporary file beside FILE,
// which becomes FILE, whole, only when the run commits (docs/cli.md, "A
// seen-set across runs").
#ifndef URISCAN_SRC_STORE_OUTPUT_FILE_H_
#define URISCAN_SRC_STORE_OUTPUT_FILE_H_

#include <string>

namespace uriscan {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();  // a temporary file never renamed is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // FILE's absolute path (its directory must exist) and the temporary
  // file's, "DIR/.NAME.uriscan-NONCE.tmp": a name no other run uses, so
  // that a state's MANIFEST names the temporary file of its own commit and
  // never another run's. False with *error when FILE cannot be one (no
  // directory, no name, a control byte in the path).
  bool Resolve(const std::string& file, std::string* error);
  const std::string& path() const { return final_; }
  const std::string& tmp() const { return tmp_; }
  bool Exists() const;

  // Removes what killed runs with this FILE left (".NAME.uriscan-*.tmp"),
  // creates the temporary file and makes it the process's standard output
  // (the command), or, with `as_stdout` false, keeps it for Write() (a
  // library call inside another program).
  bool Open(std::string* error, bool as_stdout = true);
  bool Write(const std::string& bytes, std::string* error);
  // Flushes standard output (or not), fsyncs the temporary file and its
  // directory.
  bool Sync(std::string* error);
  // The temporary file is named by a committed state: it stays, whatever
  // happens to this run (the next update puts it in place).
  void Keep() { keep_ = true; }
  // Renames the temporary file to FILE (never over a file that appeared
  // meanwhile, unless `replace`: then over FILE itself, a link included,
  // never through it) and fsyncs their directory.
  bool Publish(std::string* error, bool replace = false);

 private:
  std::string given_, name_, parent_, final_, tmp_;
  bool open_ = false, keep_ = false;
  int fd_ = -1;  // the temporary file, when it is not standard output
};

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_OUTPUT_FILE_H_
