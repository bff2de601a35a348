// SPDX-License-Identifier: MIT
// The uriscan command end to end, parse: JSON Lines and TSV records, the risks
// in JSON, and the derived columns of --columns.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, ParseJsonlMatchesGolden) {
  const Result r = Run("parse --format=jsonl --quiet " + kTricky);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, Slurp(std::string(URISCAN_SOURCE_DIR) +
                         "/corpus/handmade/tricky.expected.jsonl"));
}

TEST_F(CliTest, ParseTsvMatchesGolden) {
  const Result r = Run("parse --format=tsv --quiet " + kTricky);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, Slurp(std::string(URISCAN_SOURCE_DIR) +
                         "/corpus/handmade/tricky.expected.tsv"));
}

TEST_F(CliTest, JsonlIsTheDefaultAndKeysFollowDefinedness) {
  const Result r = Run("parse", "http://a?\n//h:\n");
  EXPECT_EQ(r.out,
            "{\"valid\":true,\"scheme\":\"http\",\"host\":\"a\",\"host_type\":"
            "\"name\",\"path\":\"\",\"query\":\"\"}\n"
            "{\"valid\":true,\"host\":\"h\",\"host_type\":\"name\",\"port\":"
            "\"\",\"path\":\"\"}\n");
  EXPECT_EQ(r.err, "uriscan: 2 lines, 2 valid, 0 invalid\n");
}

TEST_F(CliTest, ParseJsonlAddsRisksOnlyWhenThereAreAny) {
  const Result r = Run("parse --quiet",
                       "http://u@h/\nhttp://h/\nhttp://h/%zz\n");
  EXPECT_EQ(r.out,
            "{\"valid\":true,\"scheme\":\"http\",\"userinfo\":\"u\","
            "\"host\":\"h\",\"host_type\":\"name\",\"path\":\"/\","
            "\"risks\":[\"credentials\"]}\n"
            "{\"valid\":true,\"scheme\":\"http\",\"host\":\"h\","
            "\"host_type\":\"name\",\"path\":\"/\"}\n"
            "{\"valid\":false,\"error\":\"pct-encoded\",\"at\":9}\n");
  // TSV keeps its fixed columns.
  const Result tsv = Run("parse --format=tsv --quiet", "http://u@h/\n");
  EXPECT_EQ(tsv.out.find("risk"), std::string::npos);
}

TEST_F(CliTest, DerivedColumnsPublicSuffixAndSurt) {
  const std::string in =
      "http://www.Example.co.uk:8080/a?b=1&utm_source=x#f\n"  // ICANN
      "https://foo.blogspot.com/\n"                            // private
      "http://192.168.0.1/x\n"                                 // IPv4
      "http://[::1]:80/\n"                                     // IPv6
      "http://co.uk/\n"                           // itself a public suffix
      "mailto:a@b\n"                              // no host
      "bad uri\n"
      "HTTP://WWW.EXAMPLE.COM:80/A/./B?\n"
      "a/relative\n";
  const Result r = Run(
      "parse --format=tsv --quiet "
      "--columns=line,registrable_domain,public_suffix,surt",
      in);
  EXPECT_EQ(r.status, 0);
  // surt: what the Internet Archive's surt.surt() returned for each.
  EXPECT_EQ(r.out,
            "line\tregistrable_domain\tpublic_suffix\tsurt\n"
            "1\texample.co.uk\tco.uk\tuk,co,example:8080)/a?b=1&utm_source=x\n"
            "2\tfoo.blogspot.com\tblogspot.com\tcom,blogspot,foo)/\n"
            "3\t\\N\t\\N\t1,0,168,192)/x\n"
            "4\t\\N\t\\N\t::1)/\n"
            "5\t\\N\tco.uk\tuk,co)/\n"
            "6\t\\N\t\\N\tmailto:a@b\n"
            "7\t\\N\t\\N\t\\N\n"
            "8\texample.com\tcom\tcom,example)/a/b\n"
            "9\t\\N\t\\N\t\\N\n");
  // The crawler normal form in SURT shape, as the surt column was before.
  const Result old = Run("parse --format=tsv --quiet --columns=surt_crawler",
                         in);
  EXPECT_EQ(old.out,
            "surt_crawler\n"
            "uk,co,example:8080)/a?b=1\n"
            "com,blogspot,foo)/\n"
            "192.168.0.1)/x\n"
            "[::1])/\n"
            "uk,co)/\n"
            "\\N\n"
            "\\N\n"
            "com,example)/A/B\n"
            "\\N\n");
  // A backslash the library writes is escaped as TSV text; a port it
  // refuses (above 65535) gives \N.
  EXPECT_EQ(Run("parse --format=tsv --quiet --columns=surt",
                "http://a.example/x%5Cy\nhttp://a.example:99999/\n")
                .out,
            "surt\nexample,a)/x\\\\y\n\\N\n");
}

// One mapping of internationalized hosts for every derived host column,
// the crawler profile and --lenient: the Internet Archive surt library's
// (IDNA 2003: sharp s is "ss"). The surt values are what surt.surt()
// returned for each line; a name IDNA refuses (an empty label, bytes that
// are not UTF-8) is kept as written.
TEST_F(CliTest, DerivedColumnsMapIdnHostsOneWay) {
  const std::string in =
      "http://caf%C3%A9.fr/\n"
      "http://B%C3%9Ccher.de/x\n"
      "http://xn--bcher-kva.de/x\n"
      "http://www.fa%C3%9F.co.uk/\n"
      "http://%E3%80%82a.de/\n"
      "http://%FF.de/\n"
      "http://fa\xc3\x9f.de/\n";
  const Result r = Run(
      "parse --format=tsv --quiet --lenient --columns=registrable_domain,"
      "public_suffix,subdomain,surt,surt_crawler",
      in);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "registrable_domain\tpublic_suffix\tsubdomain\tsurt\tsurt_crawler\n"
            "xn--caf-dma.fr\tfr\t\tfr,xn--caf-dma)/\tfr,xn--caf-dma)/\n"
            "xn--bcher-kva.de\tde\t\tde,xn--bcher-kva)/x\tde,xn--bcher-kva)/x\n"
            "xn--bcher-kva.de\tde\t\tde,xn--bcher-kva)/x\tde,xn--bcher-kva)/x\n"
            "fass.co.uk\tco.uk\twww\tuk,co,fass)/\tuk,co,fass)/\n"
            "%e3%80%82a.de\tde\t\tde,%e3%80%82a)/\tde,%E3%80%82a)/\n"
            "%ff.de\tde\t\tde,%ff)/\tde,%FF)/\n"
            "fass.de\tde\t\tde,fass)/\tde,fass)/\n");
  // The crawler profile: one class for every spelling of a name.
  const Result d = Run("dedup --profile=crawler --quiet",
                       "http://b%C3%BCcher.de/x\nhttp://xn--bcher-kva.de/x\n"
                       "http://B%C3%9Ccher.de./x\nhttp://fass.de/\n"
                       "http://FA%C3%9F.de/\n");
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out, "http://b%C3%BCcher.de/x\nhttp://fass.de/\n");
  EXPECT_EQ(Run("normalize --profile=crawler --quiet",
                "http://B%C3%9Ccher.de./x\nhttp://%FF.de/\n").out,
            "http://xn--bcher-kva.de/x\thttp://B%C3%9Ccher.de./x\n"
            "http://%FF.de/\thttp://%FF.de/\n");
}

TEST_F(CliTest, DerivedColumnsKeyAndNormalizedFollowTheProfile) {
  const std::string in = "HTTP://A.example:80/x/../y?utm_source=1\nbad uri\n";
  const Result r = Run("parse --format=tsv --quiet --profile=crawler "
                       "--columns=normalized,key,valid",
                       in);
  const Result keys = Run("dedup --keys --quiet --profile=crawler", in);
  ASSERT_GE(keys.out.size(), 17u);
  ASSERT_EQ(keys.out[16], '\t');
  EXPECT_EQ(r.out, "normalized\tkey\tvalid\nhttp://a.example/y\t" +
                       keys.out.substr(0, 16) + "\ttrue\n\\N\t\\N\tfalse\n");
  // The same rows, whatever the threads and chunks.
  std::string many;
  for (int i = 0; i < 3000; ++i)
    many += "http://www" + std::to_string(i % 7) + ".example.org/" +
            std::to_string(i) + "?q\n";
  const std::string cols =
      "parse --format=tsv --quiet --columns=surt,key,registrable_domain,"
      "normalized,line ";
  const Result one = Run(cols + "--threads=1", many);
  EXPECT_EQ(Run(cols + "--threads=3 --chunk-size=100", many).out, one.out);
}

TEST_F(CliTest, DerivedColumnsUsageAndPslFile) {
  Result r = Run("parse --format=tsv --columns=host,tld");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--columns takes line, valid, scheme"),
            std::string::npos);
  EXPECT_NE(r.err.find("not 'tld'"), std::string::npos);
  EXPECT_EQ(Run("parse --columns=host").status, 2);  // jsonl has no columns
  Write(Path("list.dat"), "// ===BEGIN ICANN DOMAINS===\nexample\n"
                          "// ===END ICANN DOMAINS===\n");
  r = Run("parse --format=tsv --quiet --columns=registrable_domain "
          "--psl " + Path("list.dat"),
          "http://a.b.example/\n");
  EXPECT_EQ(r.out, "registrable_domain\nb.example\n");
  EXPECT_EQ(Run("parse --format=tsv --columns=host --psl=/nonexistent").status,
            2);
}

}  // namespace uriscan_cli_test
