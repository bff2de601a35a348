// SPDX-License-Identifier: MIT
// Loading the test corpora by path.
#include "tests/support/corpus.h"

#include <fstream>
#include <sstream>

namespace uriscan {
namespace test_corpus {

bool ReadFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *bytes = ss.str();
  return true;
}

std::vector<CorpusFile> LoadSharedCorpora() {
  std::vector<CorpusFile> out;
  for (const char* name : {"kasztp", "userbait", "node_files", "isaacs_files"}) {
    CorpusFile f{name, std::string(URISCAN_SHARED_CORPUS_DIR) + "/" + name +
                           ".txt", ""};
    if (ReadFile(f.path, &f.bytes)) out.push_back(std::move(f));
  }
  CorpusFile log{"apache_access", std::string(URISCAN_SHARED_CORPUS_DIR) +
                                      "/apache_access.log", ""};
  if (ReadFile(log.path, &log.bytes)) out.push_back(std::move(log));
  return out;
}

std::vector<CorpusFile> LoadCorpora() {
  std::vector<CorpusFile> out;
  CorpusFile gen{"generated", URISCAN_GENERATED_CORPUS, ""};
  if (ReadFile(gen.path, &gen.bytes)) out.push_back(std::move(gen));
  CorpusFile tricky{"tricky", std::string(URISCAN_SOURCE_DIR) +
                                  "/corpus/handmade/tricky.txt", ""};
  if (ReadFile(tricky.path, &tricky.bytes)) out.push_back(std::move(tricky));
  for (CorpusFile& f : LoadSharedCorpora()) out.push_back(std::move(f));
  return out;
}

}  // namespace test_corpus
}  // namespace uriscan
