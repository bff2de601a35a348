// SPDX-License-Identifier: MIT
// Every parsing vector of ../shared/conformance/seed_vectors.json, read at
// test time: split, invalid, valid_host_literals, grammar_variants (RFC 3986).
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/seed_vectors.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace {

using nlohmann::json;

using test_corpus::SeedVectors;

std::optional<std::string_view> Str(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get_ref<const std::string&>();
}

HostKind HostKindOf(const std::string& rule) {
  if (rule == "IPv4address") return HostKind::kIPv4;
  if (rule == "IPv6address") return HostKind::kIPv6;
  if (rule == "IPvFuture") return HostKind::kIPvFuture;
  return HostKind::kRegName;
}

TEST_F(SeedVectors, Split) {
  int checked = 0;
  for (const json& c : V("split")) {
    const std::string& in = c["input"].get_ref<const std::string&>();
    const UriReference u = ParseUriReference(in);
    const bool want_valid = c.value("valid_rfc3986", true);
    ASSERT_EQ(u.valid(), want_valid) << in;
    if (!want_valid) continue;
    EXPECT_EQ(u.scheme(), Str(c["scheme"])) << in;
    EXPECT_EQ(u.authority(), Str(c["authority"])) << in;
    EXPECT_EQ(u.userinfo(), Str(c["userinfo"])) << in;
    EXPECT_EQ(u.host(), Str(c["host"])) << in;
    EXPECT_EQ(u.port(), Str(c["port"])) << in;
    EXPECT_EQ(std::optional<std::string_view>(u.path()), Str(c["path"])) << in;
    EXPECT_EQ(u.query(), Str(c["query"])) << in;
    EXPECT_EQ(u.fragment(), Str(c["fragment"])) << in;
    if (!c["host_type"].is_null()) {
      EXPECT_EQ(u.host_kind(), HostKindOf(c["host_type"])) << in;
    }
    EXPECT_EQ(Recompose(u), in);
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

TEST_F(SeedVectors, Invalid) {
  int checked = 0;
  for (const json& c : V("invalid")) {
    const std::string& in = c["input"].get_ref<const std::string&>();
    const std::string& rule = c["rule"].get_ref<const std::string&>();
    ++checked;
    if (rule == "IPv6address" || rule == "IPvFuture") {
      // A host literal: wrong alone and wrong in brackets.
      if (rule == "IPv6address") {
        EXPECT_TRUE(CheckIPv6Address(in)) << in;
      }
      if (rule == "IPvFuture") {
        EXPECT_TRUE(CheckIPvFuture(in)) << in;
      }
      const UriReference u = ParseUriReference("http://[" + in + "]/");
      EXPECT_FALSE(u.valid()) << in;
    } else if (rule == "IPv4address") {
      EXPECT_FALSE(IsIPv4Address(in)) << in;
      const UriReference u = ParseUriReference("http://" + in + "/");
      EXPECT_EQ(u.valid(), c.value("valid_as_reg_name", false)) << in;
      if (u.valid()) {
        EXPECT_EQ(u.host_kind(), HostKind::kRegName) << in;
      }
    } else {
      const UriReference u = ParseUriReference(in);
      EXPECT_FALSE(u.valid()) << in;
      EXPECT_LE(u.error().offset, in.size()) << in;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST_F(SeedVectors, ValidHostLiterals) {
  for (const json& c : V("valid_host_literals")) {
    const std::string& in = c["input"].get_ref<const std::string&>();
    const HostKind kind = HostKindOf(c["rule"]);
    const std::string uri = kind == HostKind::kIPv4 ? "http://" + in + ":8/"
                                                    : "http://[" + in + "]:8/";
    const UriReference u = ParseUriReference(uri);
    ASSERT_TRUE(u.valid()) << uri;
    EXPECT_EQ(u.host_kind(), kind) << uri;
    EXPECT_EQ(u.port(), std::optional<std::string_view>("8")) << uri;
    if (kind == HostKind::kIPv6) {
      EXPECT_FALSE(CheckIPv6Address(in)) << in;
    }
    if (kind == HostKind::kIPvFuture) {
      EXPECT_FALSE(CheckIPvFuture(in)) << in;
    }
    if (kind == HostKind::kIPv4) {
      EXPECT_TRUE(IsIPv4Address(in)) << in;
    }
  }
}

TEST_F(SeedVectors, GrammarVariantsFollowRfc3986) {
  for (const json& c : V("grammar_variants")) {
    const std::string& in = c["input"].get_ref<const std::string&>();
    EXPECT_EQ(ParseUriReference(in).valid(), c["rfc3986"].get<bool>()) << in;
  }
}

}  // namespace
}  // namespace uriscan
