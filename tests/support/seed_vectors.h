// SPDX-License-Identifier: MIT
// A fixture that reads ../shared/conformance/seed_vectors.json once per
// suite; tests skip (and say so) when it is not there.
#ifndef URISCAN_TESTS_SUPPORT_SEED_VECTORS_H_
#define URISCAN_TESTS_SUPPORT_SEED_VECTORS_H_

#include <fstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace uriscan {
namespace test_corpus {

class SeedVectors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::ifstream in(URISCAN_SEED_VECTORS);
    if (in) vectors_ = new nlohmann::json(nlohmann::json::parse(in));
  }
  static void TearDownTestSuite() {
    delete vectors_;
    vectors_ = nullptr;
  }
  void SetUp() override {
    if (!vectors_) GTEST_SKIP() << "no " << URISCAN_SEED_VECTORS;
  }
  static const nlohmann::json& V(const char* key) { return vectors_->at(key); }
  static inline nlohmann::json* vectors_ = nullptr;
};

}  // namespace test_corpus
}  // namespace uriscan

#endif  // URISCAN_TESTS_SUPPORT_SEED_VECTORS_H_
