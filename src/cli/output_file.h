// SPDX-License-Identifier: MIT
// `dedup --output=FILE`: the run's lines go to a temporary file beside FILE,
// which becomes FILE, whole, only when the run commits (docs/cli.md, "A
// seen-set across runs").
#ifndef URISCAN_SRC_CLI_OUTPUT_FILE_H_
#define URISCAN_SRC_CLI_OUTPUT_FILE_H_

#include <string>

namespace uriscan {
namespace cli {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();  // a temporary file never renamed is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // FILE's absolute path (its directory must exist) and the temporary
  // file's: "DIR/.NAME.uriscan-tmp". False with *error when FILE cannot be
  // one (no directory, no name).
  bool Resolve(const std::string& file, std::string* error);
  const std::string& path() const { return final_; }
  const std::string& tmp() const { return tmp_; }
  bool Exists() const;

  // Creates the temporary file (a leftover of a killed run is replaced)
  // and makes it the process's standard output.
  bool Open(std::string* error);
  // Flushes standard output and fsyncs the temporary file.
  bool Sync(std::string* error);
  // Renames the temporary file to FILE (never over a file that appeared
  // meanwhile) and fsyncs their directory.
  bool Publish(std::string* error);

 private:
  std::string given_, final_, tmp_;
  bool open_ = false, published_ = false;
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_OUTPUT_FILE_H_
