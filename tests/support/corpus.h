// SPDX-License-Identifier: MIT
// Test corpora: the generated one, the hand-written one, and the shared ones.
#ifndef URISCAN_TESTS_SUPPORT_CORPUS_H_
#define URISCAN_TESTS_SUPPORT_CORPUS_H_

#include <string>
#include <vector>

namespace uriscan {
namespace test_corpus {

struct CorpusFile {
  std::string name;  // "generated", "kasztp", ...
  std::string path;
  std::string bytes;
};

// Reads a whole file; false when it cannot be read.
bool ReadFile(const std::string& path, std::string* bytes);
// The generated corpus and corpus/handmade/tricky.txt (always there), then
// every ../shared/corpus/*.txt and apache_access.log that exists.
std::vector<CorpusFile> LoadCorpora();
// Only the shared ones (empty when ../shared/corpus is absent).
std::vector<CorpusFile> LoadSharedCorpora();

}  // namespace test_corpus
}  // namespace uriscan

#endif  // URISCAN_TESTS_SUPPORT_CORPUS_H_
