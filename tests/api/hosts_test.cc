// SPDX-License-Identifier: MIT
// PublicSuffixList against libpsl, the oracle: every host of the shared
// corpora, every rule of the list with labels around it, and hosts made to
// hit libpsl's quirks (leading, trailing and doubled dots, upper case,
// bytes above 127, more than nine labels), for the built-in list and for
// lists read from files.
#include <idn2.h>
#include <libpsl.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

constexpr char kListFile[] = "/usr/share/publicsuffix/public_suffix_list.dat";
constexpr char kDafsaFile[] =
    "/usr/share/publicsuffix/public_suffix_list.dafsa";

struct Answers {
  std::optional<std::string> registrable, suffix, subdomain;
  bool operator==(const Answers& o) const {
    return registrable == o.registrable && suffix == o.suffix &&
           subdomain == o.subdomain;
  }
};

std::optional<std::string> Str(std::optional<std::string_view> v) {
  if (!v) return std::nullopt;
  return std::string(*v);
}

// What libpsl answers for `host`: ASCII upper case lowered, the subdomain
// the host as written left of the registrable domain and its dot.
Answers Oracle(const psl_ctx_t* psl, std::string_view host) {
  Answers a;
  if (host.empty()) return a;
  std::string lower(host);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? c + 32 : c;
  const char* r = psl_registrable_domain(psl, lower.c_str());
  const char* p = psl_unregistrable_domain(psl, lower.c_str());
  if (r) a.registrable = r;
  if (p) a.suffix = p;
  if (r) {
    const size_t n = std::string_view(r).size();
    a.subdomain = n >= host.size() ? std::string()
                                   : std::string(host.substr(0, host.size() - n - 1));
  }
  return a;
}

Answers Ours(const PublicSuffixList& list, std::string_view host) {
  Answers a;
  const auto s = list.Lookup(host);
  a.registrable = Str(s.registrable_domain);
  a.suffix = Str(s.public_suffix);
  a.subdomain = Str(list.Subdomain(host));
  return a;
}

std::string Show(const std::optional<std::string>& s) {
  return s ? "\"" + *s + "\"" : "none";
}

// Compares every host; reports the first few differences, returns how many.
size_t CountDifferences(const PublicSuffixList& list, const psl_ctx_t* psl,
                        const std::vector<std::string>& hosts) {
  size_t differences = 0;
  for (const std::string& host : hosts) {
    const Answers want = Oracle(psl, host), got = Ours(list, host);
    if (want == got) continue;
    if (++differences <= 10) {
      ADD_FAILURE() << "host \"" << host << "\": libpsl "
                    << Show(want.registrable) << " " << Show(want.suffix)
                    << " " << Show(want.subdomain) << ", table "
                    << Show(got.registrable) << " " << Show(got.suffix) << " "
                    << Show(got.subdomain);
    }
  }
  return differences;
}

// The hosts of every line of the shared corpora and the hand-written one,
// whatever their kind, and each whole line as a "host" too (slashes,
// colons, '%', spaces and bytes above 127 in it).
std::vector<std::string> CorpusHosts() {
  std::vector<std::string> hosts;
  for (const auto& f : test_corpus::LoadCorpora()) {
    if (f.name == "generated") continue;
    OwnedBatch batch;
    if (!BatchFromLines(f.bytes, &batch)) continue;
    ComponentSpans spans;
    Scan(batch.view(), &spans);
    for (size_t i = 0; i < batch.size(); ++i) {
      const UriReference uri = spans.Row(i, batch.view().data);
      if (const auto host = uri.host()) hosts.emplace_back(*host);
      hosts.emplace_back(uri.text());
    }
  }
  return hosts;
}

// The rules of the list file (lines that are not comments, without "!"
// or "*.").
std::vector<std::string> ListRules() {
  std::ifstream in(kListFile);
  std::vector<std::string> rules;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.empty() || line.compare(0, 2, "//") == 0) continue;
    if (line[0] == '!') line.erase(0, 1);
    if (line.compare(0, 2, "*.") == 0) line.erase(0, 2);
    rules.push_back(line);
  }
  return rules;
}

// Each rule as a host, under one and two labels more, in upper case, with
// a trailing dot, with an empty label, in its ACE form when it is an IDN.
std::vector<std::string> RuleHosts() {
  std::vector<std::string> hosts;
  for (const std::string& rule : ListRules()) {
    std::vector<std::string> forms{rule};
    bool ascii = true;
    for (char c : rule) ascii = ascii && static_cast<unsigned char>(c) < 128;
    if (!ascii) {
      // The ACE form via the list itself: libpsl matches both forms.
      char* out = nullptr;
      if (idn2_lookup_u8(reinterpret_cast<const uint8_t*>(rule.c_str()),
                         reinterpret_cast<uint8_t**>(&out),
                         IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL) == IDN2_OK) {
        forms.emplace_back(out);
        idn2_free(out);
      }
    }
    for (const std::string& f : forms) {
      std::string upper = f;
      for (char& c : upper) c = (c >= 'a' && c <= 'z') ? c - 32 : c;
      for (const std::string& h :
           {f, "a." + f, "www.b." + f, "city." + f, "WWW." + upper, f + ".",
            "a." + f + ".", "a.." + f, "." + f, "xn--a." + f, "%41." + f,
            "\xc3\xa9." + f}) {
        hosts.push_back(h);
      }
    }
  }
  return hosts;
}

// Hosts made by hand for libpsl's rules and quirks.
const std::vector<std::string>& HardHosts() {
  static const std::vector<std::string> hosts{
      // wildcard and exception rules: *.ck !www.ck, *.kawasaki.jp
      // !city.kawasaki.jp, *.bd
      "ck", "a.ck", "b.a.ck", "www.ck", "a.www.ck", "WWW.CK", "www.ck.",
      "kawasaki.jp", "x.kawasaki.jp", "city.kawasaki.jp",
      "a.city.kawasaki.jp", "b.a.x.kawasaki.jp", "bd", "com.bd", "a.com.bd",
      // plain rules at several depths, private section
      "com", "example.com", "www.example.com", "co.uk", "example.co.uk",
      "a.b.c.example.co.uk", "github.io", "user.github.io",
      "a.user.github.io", "blogspot.com", "x.blogspot.com",
      "forgot.his.name", "a.forgot.his.name", "his.name", "a.his.name",
      // single labels, empty labels, dots at the ends
      "localhost", "a", ".", "..", "...", ".com", "com.", "com..",
      "example.com.", "example.com..", "a..example.com", ".example.com",
      "..example.com", "a...b", "www..co.uk", "co..uk", ".co.uk", "co.uk.",
      "example..com.",
      // case, percent-encoding, bytes above 127, IDN in both forms
      "EXAMPLE.COM", "Www.Example.Co.Uk", "ExAmPlE.cK", "%65xample.com",
      "example.%63om", "a%2eexample.com", "b\xc3\xbc" "cher.de",
      "\xe4\xbe\x8b\xe5\xad\x90.\xe4\xb8\xad\xe5\x9b\xbd",
      "xn--fiqs8s", "a.xn--fiqs8s", "\xe4\xb8\xad\xe5\x9b\xbd",
      "a.\xe4\xb8\xad\xe5\x9b\xbd", "xn--55qx5d.cn", "a.xn--55qx5d.cn",
      "\xe5\x85\xac\xe5\x8f\xb8.cn", "a.\xe5\x85\xac\xe5\x8f\xb8.cn",
      "xn--", "xn--.com", "a.xn--p1ai", "\xd1\x80\xd1\x84",
      "a.\xd1\x80\xd1\x84", "a.\xc3\x85.com", "\xff.com", "a.\xff",
      "a.\xc3", "\xc3.jp",
      // IP-looking, ports, userinfo, spaces
      "127.0.0.1", "192.168.1.1.in-addr.arpa", "[::1]", "a.com:80",
      "u@a.com", "a b.com", "a.com/x",
      // more than nine labels (libpsl looks at the last nine)
      "a.b.c.d.e.f.g.h.i.j.example.com", "1.2.3.4.5.6.7.8.9.co.uk",
      "1.2.3.4.5.6.7.8.co.uk", "1.2.3.4.5.6.7.co.uk",
      "a.b.c.d.e.f.g.h.city.kawasaki.jp", "a.b.c.d.e.f.g.h.i.city.kawasaki.jp",
      "..........com", ".........com", "a.b.c.d.e.f.g.h.i..com",
      ".a.b.c.d.e.f.g.h.i.com", "a.b.c.d.e.f.g.h..i.com",
      // control bytes (0x1F is the DAFSA's UTF-8 marker) and NUL, which
      // ends libpsl's C string
      "a\x1f.com", "\x1f", "a.\x1f", "x.b\x1f", "x.b\x1f\x43", "a.\x1f\x44",
      "\x01.com", std::string("a\0b.com", 7), std::string("www.a.com\0", 10),
      std::string("\0", 1)};
  return hosts;
}

// Random hosts: a rule with zero to three labels before it, drawn from a
// few that hit exceptions, wildcards and the quirks.
std::vector<std::string> RandomHosts(size_t n) {
  const std::vector<std::string> rules = ListRules();
  const std::vector<std::string> labels{
      "www", "city", "a", "", "A", "WWW", "xn--p1ai", "\xc3\xa9", "b-c",
      "%41", "ck", "jp", "com", "1"};
  std::mt19937 rng(20240613);
  std::vector<std::string> hosts;
  for (size_t i = 0; i < n; ++i) {
    std::string h = rules[rng() % rules.size()];
    for (int k = static_cast<int>(rng() % 4); k > 0; --k)
      h = labels[rng() % labels.size()] + "." + h;
    if (rng() % 16 == 0) h += ".";
    hosts.push_back(h);
  }
  return hosts;
}

TEST(PublicSuffixTableTest, BuiltinListIsATable) {
  // Debian's libpsl is built from /usr/share/publicsuffix (the
  // publicsuffix package, which tools/setup.sh installs).
  EXPECT_TRUE(PublicSuffixList().HasTable())
      << psl_builtin_filename() << " missing or not the built-in list's";
}

TEST(PublicSuffixTableTest, BuiltinAgreesWithLibpslOnCorpusHosts) {
  const PublicSuffixList list;
  const std::vector<std::string> hosts = CorpusHosts();
  EXPECT_GT(hosts.size(), 100000u);
  EXPECT_EQ(CountDifferences(list, psl_builtin(), hosts), 0u);
}

TEST(PublicSuffixTableTest, BuiltinAgreesWithLibpslOnEveryRule) {
  const PublicSuffixList list;
  const std::vector<std::string> hosts = RuleHosts();
  EXPECT_GT(hosts.size(), 100000u);
  EXPECT_EQ(CountDifferences(list, psl_builtin(), hosts), 0u);
}

TEST(PublicSuffixTableTest, BuiltinAgreesWithLibpslOnHardAndRandomHosts) {
  const PublicSuffixList list;
  EXPECT_EQ(CountDifferences(list, psl_builtin(), HardHosts()), 0u);
  EXPECT_EQ(CountDifferences(list, psl_builtin(), RandomHosts(200000)), 0u);
}

TEST(PublicSuffixTableTest, KnownAnswers) {
  const PublicSuffixList list;
  auto reg = [&](const char* h) { return Str(list.Lookup(h).registrable_domain); };
  auto suf = [&](const char* h) { return Str(list.Lookup(h).public_suffix); };
  EXPECT_EQ(reg("a.b.ck"), "a.b.ck");  // *.ck
  EXPECT_EQ(suf("a.b.ck"), "b.ck");
  EXPECT_EQ(reg("a.www.ck"), "www.ck");  // !www.ck
  EXPECT_EQ(suf("www.ck"), "ck");
  EXPECT_EQ(reg("x.y.kawasaki.jp"), "x.y.kawasaki.jp");
  EXPECT_EQ(reg("a.city.kawasaki.jp"), "city.kawasaki.jp");
  // The built-in list's DAFSA finds "" as a wildcard rule: "com." is a
  // public suffix there (not in a list read from its file).
  EXPECT_EQ(reg("WWW.EXAMPLE.COM."), "example.com.");
  EXPECT_EQ(suf("WWW.EXAMPLE.COM."), "com.");
  EXPECT_EQ(reg(".example.com"), std::nullopt);  // a leading dot: none
  EXPECT_EQ(suf(".example.com"), "com");
  EXPECT_EQ(suf("a..com"), ".com");
  EXPECT_EQ(reg("localhost"), std::nullopt);
  EXPECT_EQ(suf("localhost"), "localhost");
  EXPECT_EQ(reg("a.b.c.d.e.f.g.h.i.j.example.com"), "example.com");
  EXPECT_EQ(list.Subdomain("A.B.Example.CO.UK"), "A.B");
}

TEST(PublicSuffixTableTest, ListFileAgreesWithLibpsl) {
  const auto list = PublicSuffixList::FromFile(kListFile);
  ASSERT_NE(list, nullptr);
  EXPECT_TRUE(list->HasTable());
  psl_ctx_t* psl = psl_load_file(kListFile);
  ASSERT_NE(psl, nullptr);
  EXPECT_EQ(CountDifferences(*list, psl, CorpusHosts()), 0u);
  EXPECT_EQ(CountDifferences(*list, psl, RuleHosts()), 0u);
  EXPECT_EQ(CountDifferences(*list, psl, HardHosts()), 0u);
  EXPECT_EQ(CountDifferences(*list, psl, RandomHosts(50000)), 0u);
  psl_free(psl);
}

TEST(PublicSuffixTableTest, DafsaFileIsLeftToLibpsl) {
  const auto list = PublicSuffixList::FromFile(kDafsaFile);
  ASSERT_NE(list, nullptr);
  EXPECT_FALSE(list->HasTable());
  psl_ctx_t* psl = psl_load_file(kDafsaFile);
  ASSERT_NE(psl, nullptr);
  EXPECT_EQ(CountDifferences(*list, psl, HardHosts()), 0u);
  psl_free(psl);
}

// A small list with what psl_load_fp() makes of odd lines: a rule both
// plain and wildcard, an exception without its wildcard, a rule listed
// twice, upper case, an IDN rule, a too long rule, text after a space.
TEST(PublicSuffixTableTest, OddListFileAgreesWithLibpsl) {
  const std::string file =
      ::testing::TempDir() + "/uriscan-hosts-test-list.dat";
  {
    std::ofstream out(file, std::ios::binary);
    out << "// ===BEGIN ICANN DOMAINS===\n"
           "com\n*.com\nfoo.com\n!bar.com\n!baz.org\norg\n"
           "  a.net   trailing words\nB.NET\nnet\n"
           "*.x.net\n*.x.net\n!y.x.net\nx.net\n"
           "\xc3\xa9t\xc3\xa9.fr\nfr\n*.\xe4\xb8\xad\xe5\x9b\xbd\n"
        << std::string(130, 'l') << ".long\n"
        << "*bad\n!\n"
           "// ===END ICANN DOMAINS===\n";
  }
  const auto list = PublicSuffixList::FromFile(file);
  ASSERT_NE(list, nullptr);
  psl_ctx_t* psl = psl_load_file(file.c_str());
  ASSERT_NE(psl, nullptr);
  std::vector<std::string> hosts = HardHosts();
  for (const std::string& h : std::vector<std::string>{
           "a.com", "b.a.com", "foo.com", "a.foo.com", "bar.com", "a.bar.com",
        "baz.org", "a.baz.org", "a.net", "x.a.net", "b.net", "x.b.net",
        "x.net", "q.x.net", "r.q.x.net", "y.x.net", "z.y.x.net",
        "\xc3\xa9t\xc3\xa9.fr", "a.\xc3\xa9t\xc3\xa9.fr", "xn--t-9fab.fr",
        "a.xn--t-9fab.fr", "a.\xe4\xb8\xad\xe5\x9b\xbd",
        "b.a.\xe4\xb8\xad\xe5\x9b\xbd", "b.a.xn--fiqs8s", "a.long",
        "x.." + std::string(130, 'l') + ".long", "a.", ".", "a..b"}) {
    hosts.push_back(h);
  }
  EXPECT_EQ(CountDifferences(*list, psl, hosts), 0u);
  EXPECT_EQ(CountDifferences(*list, psl, RandomHosts(20000)), 0u);
  psl_free(psl);
  std::remove(file.c_str());
}

// The IDNA mapping of host names: IDNA 2003's (the surt library's), from
// percent-encoded or raw UTF-8; refused where the name is not UTF-8, has
// an empty label or maps to something no host name holds.
TEST(IdnaHostTest, MapsAsIdna2003) {
  const struct {
    const char* host;
    const char* ace;  // nullptr: refused, nothing appended
  } cases[] = {
      {"fa%C3%9F.de", "fass.de"},
      {"fa\xc3\x9f.de", "fass.de"},
      {"B%C3%9Ccher.DE", "xn--bcher-kva.de"},
      {"b%c3%bccher.de", "xn--bcher-kva.de"},
      {"caf%C3%A9.fr.", "xn--caf-dma.fr."},
      {"%E4%BE%8B.%E4%B8%AD%E5%9B%BD", "xn--fsq.xn--fiqs8s"},
      {"a%EF%BC%8Eb%C3%BC.de", "a.xn--b-eha.de"},  // a fullwidth dot
      {"example.com", nullptr},       // ASCII: the caller's as it is
      {"%41%42.com", nullptr},        // ASCII once decoded
      {"xn--bcher-kva.de", nullptr},  // never decoded back
      {"%FF.de", nullptr},            // not UTF-8
      {"%C3.de", nullptr},            // a cut sequence
      {"%E3%80%82a.de", nullptr},     // an empty label
      {"%C3%BC..de", nullptr},
      {"a%2Fb%C3%BC.de", nullptr},    // '/' in a name
      {"%C3%BC%00.de", nullptr},      // NUL
      {"%E2%92%88.example", nullptr},  // "1." from one character
  };
  for (const auto& c : cases) {
    std::string out = "x";
    const bool mapped = AppendIdnaHost(c.host, &out);
    EXPECT_EQ(mapped, c.ace != nullptr) << c.host;
    EXPECT_EQ(out, c.ace ? std::string("x") + c.ace : "x") << c.host;
  }
}

// The Public Suffix List answers of a percent-encoded UTF-8 host are those
// of its A-labels; raw bytes stay libpsl's.
TEST(IdnaHostTest, PublicSuffixListReadsTheALabels) {
  const PublicSuffixList psl;
  const auto a = psl.Lookup("www.caf%C3%A9.co.uk");
  ASSERT_TRUE(a.registrable_domain && a.public_suffix);
  EXPECT_EQ(*a.registrable_domain, "xn--caf-dma.co.uk");
  EXPECT_EQ(*a.public_suffix, "co.uk");
  EXPECT_EQ(psl.Subdomain("WWW.fa%C3%9F.co.uk").value_or("?"), "www");
  EXPECT_EQ(psl.Lookup("%E4%BE%8B.%E4%B8%AD%E5%9B%BD")
                .registrable_domain.value_or("?"),
            "xn--fsq.xn--fiqs8s");
  EXPECT_EQ(psl.Lookup("%FF.de").registrable_domain.value_or("?"), "%ff.de");
}

}  // namespace
}  // namespace uriscan
