// SPDX-License-Identifier: MIT
// The uriscan command end to end, log analytics: params, the analytics
// columns of parse --columns, audit --columns, --line-numbers=global.
#include <fstream>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, ParamsWritesLineNameValueDecoded) {
  const Result r = Run("params --quiet",
                       "http://h/s?q=caf%C3%A9+au+lait&&lang&x=1=2&#f&y=1\n"
                       "http://h/no-query\n"
                       "http://h/%zz?a=1\n"
                       "/p?t=%09tab%0Anl%5Cbs%0D&a%2Bb=c+d;e=f\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "1\tq\tcaf\xc3\xa9 au lait\n"
            "1\tlang\t\n"
            "1\tx\t1=2\n"
            "4\tt\t\\ttab\\nnl\\\\bs\\r\n"
            "4\ta+b\tc d;e=f\n");
  EXPECT_NE(r.err.find("<stdin>:3:10: error: pct-encoded"), std::string::npos)
      << r.err;
}

// Whether `s` is well-formed UTF-8 (RFC 3629), by decoding each character.
bool IsUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : c >> 5 == 6 ? 2 : c >> 4 == 14 ? 3
                               : c >> 3 == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3f);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
      return false;
    i += n;
  }
  return true;
}

// Every loader takes the decoded columns: no NUL ("%00" stays), and by
// default valid UTF-8 (an escape of no UTF-8 character stays as written);
// --decode=bytes gives the other bytes as they are.
TEST_F(CliTest, DecodedColumnsHoldNoNulAndAreUtf8ByDefault) {
  const std::string input =
      "http://a/?q=%00&r=x%00y\n"
      "http://b/p%E9/%ED%A0%80?x=%E9&y=caf%C3%A9&%FF=%C0%AF#f%00\n"
      "http://c/?z=%F0%9F%98%80%F0%9F\n";
  Result r = Run("params --quiet", input);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "1\tq\t%00\n1\tr\tx%00y\n2\tx\t%E9\n2\ty\tcaf\xc3\xa9\n"
            "2\t%FF\t%C0%AF\n3\tz\t\xf0\x9f\x98\x80%F0%9F\n");
  const std::string columns =
      "parse --quiet --format=tsv --no-header --columns=path_decoded,"
      "query_decoded,fragment_decoded,path_segments,param_names,param:x,"
      "extension";
  r = Run(columns, input);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find('\0'), std::string::npos);
  EXPECT_TRUE(IsUtf8(r.out)) << r.out;
  EXPECT_NE(r.out.find("/p%E9/%ED%A0%80\tx=%E9&y=caf\xc3\xa9&%FF=%C0%AF\tf%00"
                       "\t[\"p%E9\",\"%ED%A0%80\"]\t[\"x\",\"y\",\"%FF\"]"
                       "\t%E9\t"),
            std::string::npos)
      << r.out;
  // --decode=bytes: the bytes, but never a NUL.
  r = Run("params --quiet --decode=bytes", input);
  EXPECT_EQ(r.out,
            "1\tq\t%00\n1\tr\tx%00y\n2\tx\t\xe9\n2\ty\tcaf\xc3\xa9\n"
            "2\t\xff\t\xc0\xaf\n3\tz\t\xf0\x9f\x98\x80\xf0\x9f\n");
  r = Run(columns + " --decode=bytes", input);
  EXPECT_EQ(r.out.find('\0'), std::string::npos);
  EXPECT_NE(r.out.find("/p\xe9/\xed\xa0\x80\tx=\xe9&"), std::string::npos)
      << r.out;
  EXPECT_EQ(Run("params --decode=latin1", input).status, 2);
}

// A chunk with a line over --max-line is written row by row: queries with
// no field at all ("?", "?&&&") give no parameter there either.
TEST_F(CliTest, ParamsRowByRowSkipsQueriesWithoutFields) {
  const Result r = Run("params --quiet --max-line=1000",
                       "http://a/?\nhttp://c/?&&&\nhttp://z/" +
                           std::string(3000, 'a') + "\nhttp://b/?x=1&&y\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "4\tx\t1\n4\ty\t\n");
  EXPECT_NE(r.err.find(":3:1001: error: too-long"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, ParamsRawKeepsTheBytesAsWritten) {
  const Result r = Run("params --raw --quiet", "http://h/?q=a+b%20c&=v\n");
  EXPECT_EQ(r.out, "1\tq\ta+b%20c\n1\t\tv\n");
}

// The same rows whatever the chunking and threads, and from gzip input.
TEST_F(CliTest, ParamsChunkAndThreadInvariance) {
  std::string input;
  for (int i = 0; i < 3000; ++i)
    input += "http://h/p?a=" + std::to_string(i) + "&b=%41+" +
             std::string(i % 50, 'x') + "\n";
  const Result one = Run("params --quiet --threads=1", input);
  const Result many =
      Run("params --quiet --threads=3 --chunk-size=1000", input);
  EXPECT_EQ(one.out, many.out);
  EXPECT_EQ(CountLines(one.out), 6000u);
  {
    std::ofstream f(Path("in.txt"), std::ios::binary);
    f << input;
  }
  ASSERT_EQ(std::system(("gzip -c '" + Path("in.txt") + "' > '" +
                         Path("in.gz") + "'")
                            .c_str()),
            0);
  const Result gz = Run("params --quiet '" + Path("in.gz") + "'");
  EXPECT_EQ(gz.out, one.out);
}

// A TSV for COPY: no header line with --no-header, and `at` is \N (not
// empty) on a valid row, so it loads into an integer column.
TEST_F(CliTest, ParseNoHeaderAndAtOfValidRows) {
  const std::string in = "http://a/b\nhttp://a b/\n";
  const Result with = Run("parse --quiet --format=tsv", in);
  const Result without = Run("parse --quiet --format=tsv --no-header", in);
  EXPECT_EQ(without.status, 0);
  EXPECT_EQ(without.out, with.out.substr(with.out.find('\n') + 1));
  const Result cols =
      Run("parse --quiet --format=tsv --no-header --columns=line,at,error", in);
  EXPECT_EQ(cols.out, "1\t\\N\t\\N\n2\t8\tdisallowed-byte\n");
  const Result json = Run("parse --no-header", in);
  EXPECT_EQ(json.status, 2);
  EXPECT_NE(json.err.find("--no-header needs --format=tsv"), std::string::npos);
}

TEST_F(CliTest, ParseAnalyticsColumns) {
  const Result r = Run(
      "parse --quiet --format=tsv --columns=line,authority,host_nowww,"
      "subdomain,registrable_domain,extension,path_decoded,query_decoded,"
      "fragment_decoded,path_segments,param_names,param:q,param_raw:q,"
      "param:x%20y,at,repaired",
      "http://u@WWW.Shop.example.co.uk:8080/a%20b/c.tar.gz?q=1+2%2B&q=3#f%09\n"
      "https://example.com/dir/?x%20y=&z\n"
      "mailto:a@b.example\n"
      "http://h /\n");
  EXPECT_EQ(r.status, 0);
  const std::string expected =
      "line\tauthority\thost_nowww\tsubdomain\tregistrable_domain\textension"
      "\tpath_decoded\tquery_decoded\tfragment_decoded\tpath_segments"
      "\tparam_names\tparam:q\tparam_raw:q\tparam:x%20y\tat\trepaired\n"
      "1\tu@WWW.Shop.example.co.uk:8080\tShop.example.co.uk\tWWW.Shop\t"
      "example.co.uk\tgz\t/a b/c.tar.gz\tq=1+2+&q=3\tf\\t\t"
      "[\"a b\",\"c.tar.gz\"]\t[\"q\",\"q\"]\t1 2+\t1+2%2B\t\\N\t\\N\tfalse\n"
      "2\texample.com\texample.com\t\texample.com\t\t/dir/\tx y=&z\t\\N\t"
      "[\"dir\",\"\"]\t[\"x y\",\"z\"]\t\\N\t\\N\t\\N\t\\N\tfalse\n"
      "3\t\\N\t\\N\t\\N\t\\N\texample\ta@b.example\t\\N\t\\N\t[\"a@b.example\"]\t"
      "[]\t\\N\t\\N\t\\N\t\\N\tfalse\n"
      "4\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t"
      "8\tfalse\n";
  EXPECT_EQ(r.out, expected);
}

TEST_F(CliTest, ParseParamNameMatchesTheDecodedName) {
  const Result q = Run("parse --quiet --format=tsv '--columns=param:a b,"
                       "param_raw:a b,raw'",
                       "?a+b=%41\n");
  EXPECT_EQ(q.out, "param:a b\tparam_raw:a b\traw\nA\t%41\t?a+b=%41\n");
}

TEST_F(CliTest, FileRawAndGlobalLineNumbers) {
  {
    std::ofstream a(Path("a.txt")), b(Path("b.txt"));
    a << "http://a/1\nhttp://a /2\n";
    b << "http://b/1\n";
  }
  const std::string files = " '" + Path("a.txt") + "' '" + Path("b.txt") + "'";
  const Result local =
      Run("parse --quiet --format=tsv --columns=line,file,raw" + files);
  EXPECT_EQ(local.out, "line\tfile\traw\n1\t" + Path("a.txt") +
                           "\thttp://a/1\n2\t" + Path("a.txt") +
                           "\thttp://a /2\n1\t" + Path("b.txt") +
                           "\thttp://b/1\n");
  const Result global = Run(
      "parse --quiet --format=tsv --columns=line --line-numbers=global" +
      files);
  EXPECT_EQ(global.out, "line\n1\n2\n3\n");
  const Result diag =
      Run("validate --quiet --line-numbers=global '" + Path("b.txt") + "' '" +
          Path("a.txt") + "'");
  EXPECT_NE(diag.err.find("a.txt:3:9: error"), std::string::npos) << diag.err;
  EXPECT_EQ(Run("params --line-numbers=sometimes").status, 2);
}

TEST_F(CliTest, AuditColumnsPrintTheFlaggedLine) {
  const Result r = Run("audit --quiet --flagged --columns=raw,host",
                       "http://a/\nhttp://u:p@127.0.0.1/x\n");
  EXPECT_EQ(r.out, "2\tcredentials,password,ip-loopback\t"
                   "http://u:p@127.0.0.1/x\t127.0.0.1\n");
  const Result all = Run("audit --quiet --columns=raw", "http://a/\n");
  EXPECT_EQ(all.out, "1\t\thttp://a/\n");
}

TEST_F(CliTest, RepairedAndRawUnderLenient) {
  const Result r = Run("parse --quiet --lenient --format=tsv "
                       "--columns=raw,repaired,path_decoded",
                       "http://h/a b\\c\n");
  EXPECT_EQ(r.out, "raw\trepaired\tpath_decoded\n"
                   "http://h/a b\\\\c\ttrue\t/a b\\\\c\n");
}

}  // namespace uriscan_cli_test

namespace uriscan_cli_test {

TEST_F(CliTest, ExtractJsonlReachesNestedKeys) {
  const Result r = Run(
      "extract --quiet --from=jsonl --field=request.url",
      "{\"request\":{\"method\":\"GET\",\"url\":\"http://a/1\"},\"x\":1}\n"
      "{\"request.url\":\"http://b/2\",\"request\":{\"url\":\"http://c/\"}}\n"
      "{\"request\":{\"headers\":{\"url\":\"no\"}},\"url\":\"no\"}\n"
      "{\"request\":\"flat\"}\n");
  EXPECT_EQ(r.out, "http://a/1\nhttp://b/2\n");
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace uriscan_cli_test
