// SPDX-License-Identifier: MIT
// The command over the ingest layer: a file cut short while it is read,
// extract --columns (a log's fields beside its references), and the
// memory of a 16 MiB line.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {
namespace {

// A file whose last line, with no "\n", continues an unclosed "<" (text)
// or quoted field (tsv, csv) ends as the same bytes through a pipe do: the
// command's reader handed out the file without that last line again and
// again, and the record cutter asked for more for ever. Also with a record
// longer than --max-line after the quote.
TEST_F(CliTest, AnUnclosedRecordAtTheEndOfAFileEndsAsThroughAPipe) {
  std::string long_csv = "\"a\n";
  for (int i = 0; i < 20000; ++i)
    long_csv += "http://x/" + std::to_string(i) + ",b\n";
  long_csv += "tail";
  const struct {
    std::string args, bytes;
  } cases[] = {
      {"extract", "<\nb"},
      {"extract", "http://a/\n<\nb"},
      {"extract", "<http://a/\nb"},
      {"extract --from=csv", "\"a\nb"},
      {"extract --from=tsv", "\"a\nb"},
      {"extract --from=csv", "http://a/\n\"http://b/\nc"},
      {"extract --from=csv --max-line=65536", long_csv},
      {"stats --from=csv", "\"a\nb"},
  };
  for (const auto& c : cases) {
    Write(Path("in.txt"), c.bytes);
    const Result file = Sh(dir_, "exec \"$URISCAN\" " + c.args + " in.txt", 120);
    const Result pipe = Sh(dir_, "cat in.txt | \"$URISCAN\" " + c.args, 120);
    ASSERT_NE(file.status, 124) << c.args << ": a file never ended";
    ASSERT_NE(pipe.status, 124) << c.args << ": a pipe never ended";
    EXPECT_EQ(file.status, pipe.status) << c.args;
    if (c.args.rfind("stats", 0) == 0) continue;  // its report times itself
    EXPECT_EQ(file.out, pipe.out) << c.args;
    std::string err = file.err;
    for (size_t at; (at = err.find("in.txt")) != std::string::npos;)
      err.replace(at, 6, "<stdin>");
    EXPECT_EQ(err, pipe.err) << c.args;
  }
}

// A line longer than --max-line reads the same whether the reader drops it
// alone (a mapped file in small chunks) or meets it inside a run of lines
// (a pipe, a large chunk): in tsv and csv a quoted field it leaves open
// goes on past it, and its record is dropped whole; a header row that
// long names no column; in text no "<...>" spans it; stats counts its
// bytes and no length for it; --lenient repairs no line that long. Each
// differed between a file and a pipe (found by the command's fuzzer).
TEST_F(CliTest, ALineTooLongReadsTheSameFromAFileAPipeAndAnyChunk) {
  const std::string x(100, 'x');
  const struct {
    std::string args, bytes, out, err;  // err: "F" for the input's name
    int status;
  } cases[] = {
      {"extract --from=csv", "http://a/\n\"" + x + "\nhttp://b/\"\nhttp://c/\n",
       "http://a/\nhttp://c/\n",
       "F:2:1: error: log-format: the record is longer than --max-line\n", 0},
      {"extract --from=csv", "http://a/\n\"" + x + "\r\n", "http://a/\n",
       "F:2:65: error: too-long: line too long\n", 0},
      {"extract --from=tsv --field=u", "u\t" + x + "\nhttp://a/\n", "",
       "F:1:1: error: log-format: the header row is longer than --max-line; "
       "no column named 'u' can be found in it\n", 2},
      {"extract", "see <URL:http://a.example/\n" + x + "\n b> end\n",
       "URL:http://a.example/\n", "F:2:65: error: too-long: line too long\n",
       0},
      {"validate --lenient", "http://a/ b\nhttp://a/" + x + " \nhttp://c/ d\n",
       "", "F:2:65: error: too-long: line too long\n", 1},
      {"parse --lenient", "http://a/" + x + " \n", "", "", 0},
      {"stats --format=json --histograms", "http://a/\n" + x + "\n", "", "", 0},
  };
  for (const auto& c : cases) {
    Write(Path("in.txt"), c.bytes);
    const std::string cmd = "\"$URISCAN\" " + c.args + " --max-line=64 --quiet";
    std::vector<std::pair<std::string, Result>> runs;
    for (const char* chunk : {"", " --chunk-size=16", " --chunk-size=1"}) {
      runs.emplace_back(std::string("file") + chunk,
                        Sh(dir_, cmd + chunk + " in.txt", 120));
      runs.emplace_back(std::string("pipe") + chunk,
                        Sh(dir_, "cat in.txt | " + cmd + chunk, 120));
    }
    for (auto& [how, r] : runs) {
      for (std::string* text : {&r.out, &r.err}) {
        for (size_t at; (at = text->find("in.txt")) != std::string::npos;)
          text->replace(at, 6, "F");
        for (size_t at; (at = text->find("<stdin>")) != std::string::npos;)
          text->replace(at, 7, "F");
      }
      const size_t timing = r.out.find(",\"throughput\":");
      if (timing != std::string::npos) r.out.erase(timing);
      EXPECT_EQ(r.status, runs[0].second.status) << c.args << ", " << how;
      EXPECT_EQ(r.out, runs[0].second.out) << c.args << ", " << how;
      EXPECT_EQ(r.err, runs[0].second.err) << c.args << ", " << how;
    }
    const Result& r = runs[0].second;
    EXPECT_EQ(r.status, c.status) << c.args;
    if (c.args.rfind("parse", 0) == 0) {
      EXPECT_EQ(r.out, "{\"valid\":false,\"error\":\"too-long\",\"at\":64}\n");
    } else if (c.args.rfind("stats", 0) == 0) {
      EXPECT_NE(r.out.find("\"lines\":2,\"bytes\":111,"), std::string::npos)
          << r.out;
      EXPECT_NE(r.out.find("\"uri_length\":[0,0,0,0,1,0,"), std::string::npos)
          << r.out;
    } else {
      EXPECT_EQ(r.out, c.out) << c.args;
      EXPECT_EQ(r.err, c.err) << c.args;
    }
  }
  // --lenient: the two short lines repaired, not the long one.
  Write(Path("in.txt"), "http://a/ b\nhttp://a/" + x + " \nhttp://c/ d\n");
  for (const char* how : {"\"$URISCAN\" validate --lenient --max-line=64 "
                          "--chunk-size=1 in.txt",
                          "cat in.txt | \"$URISCAN\" validate --lenient "
                          "--max-line=64"}) {
    const Result r = Sh(dir_, how, 120);
    EXPECT_NE(r.err.find("(too-long 1), 2 repaired\n"), std::string::npos)
        << how << "\n" << r.err;
  }
}

// logrotate's copytruncate cuts a live file under its reader. The mapped
// pages past the cut are gone; reading them raised SIGBUS (exit 135). Now
// the run gives the lines before the cut and an error naming the file, or
// (cut too late) every line; never a signal.
TEST_F(CliTest, FileCutShortWhileReadIsAnErrorNotASignal) {
  std::string line = "http://a.example/b?c=d\n";
  std::string block;
  for (int i = 0; i < 4096; ++i) block += line;
  std::string big;
  for (int i = 0; i < 1024; ++i) big += block;  // 92 MiB, 4 Mi lines
  const std::string one = Run("normalize --profile=crawler", line).out;
  ASSERT_FALSE(one.empty());
  for (const int delay_ms : {5, 20, 60, 150}) {
    Write(Path("t.txt"), big);
    const Result r = Sh(dir_, "($URISCAN normalize --profile=crawler t.txt "
                              "> out.txt; echo $? > status) & sleep " +
                                  std::to_string(delay_ms / 1000.0) +
                                  "; truncate -s 1M t.txt; wait; "
                                  "cat status; wc -l < out.txt",
                        60);
    ASSERT_EQ(r.status, 0) << r.err;
    const int status = std::stoi(r.out);
    const size_t written = std::stoul(r.out.substr(r.out.find('\n') + 1));
    if (status == 0) {  // read before the cut, or opened after it
      const size_t cut_lines = (1u << 20) / line.size() + 1;  // the last, cut
      EXPECT_TRUE(written == 4194304u || written == cut_lines) << written;
      continue;
    }
    EXPECT_EQ(status, 2) << r.err;
    // ... after the last line written (it named a line thousands before).
    EXPECT_NE(r.err.find("uriscan: error reading 't.txt' after line " +
                         std::to_string(written) + ":"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the file shrank"), std::string::npos) << r.err;
    // The lines written are whole, and those of lines before the cut.
    std::string want;
    for (size_t i = 0; i < written; ++i) want += one;
    EXPECT_TRUE(Slurp(Path("out.txt")) == want);
    EXPECT_LT(written, 4194304u);
  }
}

TEST_F(CliTest, ExtractColumnsGiveTheLogsFields) {
  const std::string log =
      "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a?b=c HTTP/1.0\" 200 "
      "2326 \"http://r.example/\" \"Mozilla/4.08 [en]\"\n"
      "5.6.7.8 - - [31/Dec/1999:23:59:60 +0000] \"POST /x HTTP/1.1\" 404 - "
      "\"-\" \"tab\\there\"\n"
      "9.9.9.9 - - [bad] \"GET /y HTTP/1.1\" 200 5 \"-\" \"-\"\n"
      "8.8.8.8 - - [01/Mar/2024:00:00:00 +0530] \"-\" 408 0 \"-\" \"-\"\n";
  Write(Path("a.log"), log);
  Result r = Run("extract --quiet --from=combined --columns=line,client,time,"
                 "method,status,bytes,referer,user_agent,uri " +
                 Path("a.log"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "1\t1.2.3.4\t2000-10-10 20:55:36\tGET\t200\t2326\t"
            "http://r.example/\tMozilla/4.08 [en]\t/a?b=c\n"
            "2\t5.6.7.8\t2000-01-01 00:00:00\tPOST\t404\t\\N\t\\N\t"
            "tab\\there\t/x\n"
            "3\t9.9.9.9\t\\N\tGET\t200\t5\t\\N\t\\N\t/y\n");
  // clf has no referer; a column that is no field is a usage error.
  r = Run("extract --from=clf --columns=uri,referer " + Path("a.log"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--columns=referer needs --from=combined"),
            std::string::npos)
      << r.err;
  r = Run("extract --from=text --columns=line,status " + Path("a.log"));
  EXPECT_EQ(r.status, 2);
  r = Run("extract --from=combined --columns=line,nope " + Path("a.log"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--columns takes"), std::string::npos) << r.err;
  // line,uri is --with-line, for every format.
  Write(Path("t.txt"), "see <http://a/> and http://b/\n");
  EXPECT_EQ(Run("extract --quiet --columns=line,uri " + Path("t.txt")).out,
            Run("extract --quiet --with-line " + Path("t.txt")).out);
}

// extract --columns takes parse's columns too, of each reference beside
// its log line's number and fields: a line that yields no reference leaves
// no row, so a status and an extension stay on one row (piping extract
// into parse numbers the references, not the log's lines).
TEST_F(CliTest, ExtractColumnsTakeParseColumnsOfEachReference) {
  const std::string log =
      "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a/b.png?x=1&y HTTP/1.0\" "
      "200 10 \"-\" \"ua\"\n"
      "not a log line\n"
      "8.8.8.8 - - [01/Mar/2024:00:00:00 +0530] \"-\" 408 0 \"-\" \"-\"\n"
      "5.6.7.8 - - [31/Dec/1999:23:59:59 +0000] \"GET /c.tar.GZ HTTP/1.1\" 404 "
      "0 \"http://www.Ref.example.co.uk/p\" \"ua\"\n"
      "5.6.7.8 - - [31/Dec/1999:23:59:59 +0000] \"GET /d%zz HTTP/1.1\" 400 "
      "0 \"-\" \"ua\"\n"
      "5.6.7.8 - - [31/Dec/1999:23:59:59 +0000] \"GET http://WWW.A.example:8080/%7Ex/?x=%41+b#f HTTP/1.1\" 200 "
      "0 \"-\" \"ua\"\n";
  Write(Path("a.log"), log);
  Result r = Run("extract --quiet --from=combined --columns=line,status,"
                 "extension,valid,param:x,path_segments " + Path("a.log"));
  EXPECT_EQ(r.status, 0) << r.err;  // (a line not in the format: diagnosed)
  EXPECT_EQ(r.out,
            "1\t200\tpng\ttrue\t1\t[\"a\",\"b.png\"]\n"
            "4\t404\tGZ\ttrue\t\\N\t[\"c.tar.GZ\"]\n"
            "5\t400\t\\N\tfalse\t\\N\t\\N\n"
            "6\t200\t\ttrue\tA b\t[\"~x\",\"\"]\n");
  // Every column of parse's but line and file, row for row what parse
  // finds in the reference extract writes.
  const std::string columns =
      "valid,scheme,userinfo,host,port,path,query,fragment,host_type,error,"
      "registrable_domain,public_suffix,surt,key,normalized,surt_crawler,raw,"
      "at,repaired,authority,host_nowww,subdomain,extension,path_decoded,"
      "query_decoded,fragment_decoded,path_segments,param_names,param:x,"
      "param_raw:x";
  for (const std::string profile : {"scheme", "crawler"}) {
    const std::string options = " --quiet --from=combined --profile=" + profile;
    const Result got = Run("extract" + options + " --columns=line," +
                           columns + " " + Path("a.log"));
    const Result numbered = Run("extract" + options + " --with-line " +
                                Path("a.log"));
    Write(Path("refs.txt"), Run("extract" + options + " " + Path("a.log")).out);
    const Result parsed = Run("parse --quiet --format=tsv --no-header "
                              "--profile=" + profile + " --columns=" +
                              columns + " " + Path("refs.txt"));
    std::string want;
    size_t n = 0, p = 0;
    while (n < numbered.out.size() && p < parsed.out.size()) {
      const size_t tab = numbered.out.find('\t', n);
      const size_t n_end = numbered.out.find('\n', n);
      const size_t p_end = parsed.out.find('\n', p);
      want += numbered.out.substr(n, tab - n) + "\t" +
              parsed.out.substr(p, p_end + 1 - p);
      n = n_end + 1;
      p = p_end + 1;
    }
    EXPECT_EQ(got.out, want) << profile;
    EXPECT_EQ(std::count(got.out.begin(), got.out.end(), '\n'), 4);
  }
  // A column of parse's that needs what parse needs: surt_crawler and the
  // crawler profile's options.
  EXPECT_EQ(Run("extract --from=combined --columns=key --fold-www " +
                Path("a.log")).status,
            2);
}

}  // namespace
}  // namespace uriscan_cli_test
