// SPDX-License-Identifier: MIT
// The uriscan command end to end, stats: the report's counts.
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sstream>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, StatsSummarizesKindsAndHosts) {
  const Result r = Run("stats", "http://1.2.3.4/\nhttp://[::1]/\n%\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("URIs scanned     3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pct-encoded      1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("name 0, ipv4 1, ipv6 1, ipvfuture 0"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, StatsCountsEachRiskFlag) {
  const Result r = Run("stats",
                       "http://u:p@h/\nhttp://u@h/\nhttp://[::1]/\n"
                       "http://h:70000/\nhttp://h/%zz\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("risk flags       4 lines with any"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    credentials            2\n"), std::string::npos);
  EXPECT_NE(r.out.find("    password               1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    ip-loopback            1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    port-out-of-range      1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    script-scheme          0\n"), std::string::npos);
}

TEST_F(CliTest, StatsFromALogCountsItsLinesByKind) {
  std::string log;
  for (const char* request :
       {"-", R"(\x16\x03\x01\x02\x00\x01)", "OPTIONS * HTTP/1.1",
        "GET /a b c", R"(GET /q?a=\x22q\x22 HTTP/1.1)",
        "GET http://h.example:8080/x HTTP/1.1", "GET /y HTTP/1.1"})
    log += std::string("1.2.3.4 - - [d] \"") + request +
           "\" 200 1 \"-\" \"x\"\n";
  log += "1.2.3.4 - - [d] \"GET /" + std::string(300, 'z') +
         " HTTP/1.1\" 200 1 \"-\" \"x\"\nnot a log line\n";
  Write(Path("a.log"), log);
  const Result r =
      Run("stats --from=combined --max-line=200 --threads=1 " + Path("a.log"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  log lines        9 (combined), 3 URI references, "
                       "3 malformed\n"
                       "    no-request       1\n"
                       "    not-http         1\n"
                       "    asterisk-form    1\n"
                       "  URIs scanned     3 "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  valid            2 (66.67 %)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("name 1, ipv4 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  // The same counts whatever the threads and chunks: a line longer than
  // --max-line is malformed whether or not it fits in a chunk.
  for (const char* opts : {"--threads=2 --chunk-size=1",
                           "--threads=3 --chunk-size=100"}) {
    const Result many = Run("stats --from=combined --max-line=200 " +
                            std::string(opts) + " " + Path("a.log"));
    const auto counts = [](const std::string& out) {
      return out.substr(0, out.find("  scan throughput"));
    };
    EXPECT_EQ(counts(many.out), counts(r.out)) << opts;
  }
  // --lenient repairs the targets, then counts them.
  const Result lenient =
      Run("stats --from=combined --lenient " + Path("a.log"));
  EXPECT_NE(lenient.out.find("  repaired         1 "), std::string::npos)
      << lenient.out;
  EXPECT_EQ(Run("stats --from=nope").err,
            "uriscan: --from takes text, clf, combined, tsv, csv or jsonl, "
            "not 'nope'\n"
            "try 'uriscan stats --help'\n");
}

// --field=referer and --base, as extract takes them: the counts are those
// of the references `extract` writes.
TEST_F(CliTest, StatsOfALogsReferersOrResolvedTargets) {
  Write(Path("b.log"),
        "1.2.3.4 - - [d] \"GET /x HTTP/1.1\" 200 1 \"http://r.example/a\" \"u\"\n"
        "1.2.3.4 - - [d] \"GET /y?q HTTP/1.1\" 200 1 \"-\" \"u\"\n"
        "1.2.3.4 - - [d] \"GET /z HTTP/1.1\" 200 1 \"http://[::1/\" \"u\"\n");
  const Result r =
      Run("stats --from=combined --field=referer " + Path("b.log"));
  EXPECT_EQ(r.status, 0) << r.err;
  const Result want = Run("extract --quiet --from=combined --field=referer " +
                          Path("b.log"));
  EXPECT_NE(r.out.find("  log lines        3 (combined, referer), " +
                       std::to_string(CountLines(want.out)) +
                       " URI references"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  URIs scanned     " +
                       std::to_string(CountLines(want.out)) + " "),
            std::string::npos) << r.out;
  EXPECT_EQ(CountLines(want.out), 2u);  // "-" gives none
  const Result based = Run("stats --from=combined --base=http://h.example/d/ " +
                           Path("b.log"));
  EXPECT_NE(based.out.find("  defined          scheme 3, authority 3, "
                           "userinfo 0, port 0, query 1"),
            std::string::npos) << based.out;
  // Every format extract reads: the references it writes, counted, and
  // a record with line breaks in a quoted field read whole.
  Write(Path("t.csv"), "n,url\n1,http://a.example/\n2,\"http://b.example/\"\n"
                       "3,\"x\ny\"\n4,http://c.example/?q\n");
  Write(Path("t.jsonl"), "{\"u\":\"http://a/\"}\n{\"v\":1}\n{\"u\":\"%zz\"}\n");
  for (const char* args : {"--from=csv --field=url t.csv",
                           "--from=jsonl --field=u t.jsonl",
                           "--from=text t.csv"}) {
    std::string a = args;
    a.replace(a.rfind(' ') + 1, std::string::npos,
              Path(a.substr(a.rfind(' ') + 1).c_str()));
    const Result refs = Run("extract --quiet " + a);
    const Result st = Run("stats --format=json " + a);
    ASSERT_EQ(st.status, 0) << args << ": " << st.err;
    const nlohmann::json j = nlohmann::json::parse(st.out);
    EXPECT_EQ(j["lines"].get<size_t>(), CountLines(refs.out)) << args;
    EXPECT_EQ(j["log"]["references"].get<size_t>(), CountLines(refs.out))
        << args;
  }
  const nlohmann::json csv = nlohmann::json::parse(
      Run("stats --format=json --from=csv --field=url " + Path("t.csv")).out);
  EXPECT_EQ(csv["log"]["lines"], 6);  // the header row and a record of two
  EXPECT_EQ(csv["valid"], 3);         // "x\ny" is a reference: invalid
  EXPECT_EQ(csv["log"]["field"], "url");
  EXPECT_EQ(Run("stats --from=csv --field=nope " + Path("t.csv")).status, 2);
  EXPECT_EQ(Run("stats --from=jsonl " + Path("t.jsonl")).status, 2);
  EXPECT_EQ(Run("stats --field=referer").status, 2);
  EXPECT_EQ(Run("stats --from=clf --field=referer").status, 2);
  EXPECT_EQ(Run("stats --from=combined --field=x").status, 2);
  EXPECT_EQ(Run("stats --from=combined --base=rel/x").status, 2);
}

// stats takes a chunk a run of rows at a time, as validate does: every
// count, risk flags included, is the same at every chunk size (runs of one
// row up to whole chunks), from a file or a pipe, and each is right.
TEST_F(CliTest, StatsCountsHoldAcrossRunsOfRows) {
  std::string in;
  size_t lines = 0, invalid = 0, ipv4 = 0, credentials = 0;
  for (size_t i = 0; i < 9000; ++i, ++lines) {
    if (i % 11 == 0) {
      in += "%zz\n";
      ++invalid;
    } else if (i % 7 == 0) {
      in += "http://10.0.0." + std::to_string(i % 250) + "/\n";
      ++ipv4;
    } else if (i % 5 == 0) {
      in += "http://u:p@h" + std::to_string(i) + "/\n";
      ++credentials;
    } else {
      in += i % 2 ? "\n" : "/p/" + std::string(i % 300, 'q') + "\n";
    }
  }
  Write(Path("in.txt"), in);
  const auto counts = [](const std::string& out) {
    return out.substr(0, out.find("  scan throughput"));
  };
  const Result whole = Run("stats --threads=1 " + Path("in.txt"));
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_NE(whole.out.find("URIs scanned     " + std::to_string(lines) + " "),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("invalid          " + std::to_string(invalid) + " "),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("ipv4 " + std::to_string(ipv4) + ","),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("    credentials            " +
                           std::to_string(credentials) + "\n"),
            std::string::npos)
      << whole.out;
  for (const char* opts : {"--threads=2 --chunk-size=1",
                           "--threads=3 --chunk-size=100",
                           "--threads=2 --chunk-size=5000"}) {
    for (const bool mapped : {true, false}) {
      const Result r = Run(std::string("stats ") + opts +
                               (mapped ? " " + Path("in.txt") : ""),
                           mapped ? "" : in);
      EXPECT_EQ(r.status, 0) << opts;
      std::string want = counts(whole.out);
      if (!mapped) {
        want.replace(want.find(Path("in.txt")), Path("in.txt").size(),
                     "<stdin>");
      }
      EXPECT_EQ(counts(r.out), want) << opts << (mapped ? " file" : " stdin");
    }
  }
}

// A top list of --format=json ({"top": [{"value", "count"}, ...]}) as
// "VALUE=COUNT " for each entry, in order.
std::string TopList(const nlohmann::json& list) {
  std::string s;
  for (const auto& e : list["top"])
    s += e["value"].get<std::string>() + "=" +
         std::to_string(e["count"].get<int>()) + " ";
  return s;
}

// --format=json: one object, its counts those of the text report and of
// the input; --top and the histograms counted from the rows.
TEST_F(CliTest, StatsJsonTopAndHistograms) {
  const std::string in =
      "http://A.example/x?q=1&utm=2\nhttp://a.example/y?q=3\n"
      "https://b.example.co.uk/\nhttp://[::1]/\n%zz\nhttp://a b/\n";
  const Result r = Run("stats --format=json --top=3", in);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "uriscan-stats-1");
  EXPECT_EQ(j["lines"], 6);
  EXPECT_EQ(j["valid"], 4);
  EXPECT_EQ(j["errors"]["pct-encoded"], 1);
  EXPECT_EQ(j["errors"]["disallowed-byte"], 1);
  EXPECT_EQ(j["host_kinds"]["ipv6"], 1);
  EXPECT_TRUE(j["log"].is_null());
  const auto top = [&](const char* list) { return TopList(j["top"][list]); };
  EXPECT_EQ(top("hosts"), "a.example=2 [::1]=1 b.example.co.uk=1 ");
  EXPECT_EQ(top("registrable_domains"), "a.example=2 example.co.uk=1 ");
  EXPECT_EQ(top("schemes"), "http=3 https=1 ");
  EXPECT_EQ(top("parameter_names"), "q=2 utm=1 ");
  EXPECT_EQ(top("error_kinds"), "disallowed-byte=1 pct-encoded=1 ");
  EXPECT_EQ(j["top"]["hosts"]["undercount"], 0);
  const auto sum = [&](const char* h) {
    int n = 0;
    for (const auto& v : j["histograms"][h]) n += v.get<int>();
    return n;
  };
  EXPECT_EQ(sum("uri_length"), 6);
  EXPECT_EQ(sum("host_length"), 4);
  EXPECT_EQ(sum("path_length"), 4);
  EXPECT_EQ(sum("query_length"), 2);
  EXPECT_EQ(j["histograms"]["buckets"][3], "4-7");
  // "%zz" (3 bytes) is in the 2-3 bucket of the lines' lengths.
  EXPECT_EQ(j["histograms"]["uri_length"][2], 1);
  // The same object, but for the times, whatever the threads and chunks.
  nlohmann::json a = j, b = nlohmann::json::parse(
      Run("stats --format=json --top=3 --threads=3 --chunk-size=16", in).out);
  a.erase("throughput");
  b.erase("throughput");
  EXPECT_EQ(a, b);
  // In text, after the counts.
  const Result text = Run("stats --top=2 --histograms", in);
  EXPECT_NE(text.out.find("  top hosts        (--top=2)\n    \"a.example\" 2\n"
                          "    \"[::1]\" 1\n"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  lengths in bytes"), std::string::npos);
  EXPECT_EQ(Run("stats --format=xml", in).status, 2);
  EXPECT_EQ(Run("stats --top=-1", in).status, 2);
}

// The first of a trimmed JSON top list is `value`, its count short of
// `at_least` by no more than the list's undercount.
void ExpectFirstWithinBound(const nlohmann::json& list,
                            const std::string& value, int at_least) {
  EXPECT_EQ(list["top"][0]["value"], value) << list;
  EXPECT_GE(list["top"][0]["count"].get<int>() +
                list["undercount"].get<int>(), at_least) << list;
}

// A host or scheme on a run of lines is counted once for the run, whatever
// its case; hosts are counted in runs of up to 4096 names each on the
// workers, IP addresses as written and with no registrable domain; every
// count is exact below 65,536 names, at any --threads and --chunk-size.
TEST_F(CliTest, StatsTopCountsRunsOfLinesAndIpAddresses) {
  std::string in =
      "http://Example.COM/a\nhttp://Example.COM/b\nhttp://Example.COM/c\n"
      "http://example.com/b\nhttp://example.com/b\nHTTP://example.com/\n"
      "http://192.0.2.1/\nhttp://192.0.2.1/x\nhttp://[2001:DB8::1]/\n";
  for (int i = 0; i < 5000; ++i) {
    in += "https://n" + std::to_string(i) + ".example.org/\n";
    if (i % 1000 == 999) in += "http://EXAMPLE.com/\n";
  }
  in += "http://example.com/\n";
  nlohmann::json first;
  for (const char* opts : {"", " --threads=1", " --threads=3 --chunk-size=16",
                           " --threads=2 --chunk-size=1K"}) {
    const Result r = Run(std::string("stats --format=json --top=3") + opts, in);
    ASSERT_EQ(r.status, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    const auto top = [&](const char* list) { return TopList(j["top"][list]); };
    EXPECT_EQ(top("hosts"), "example.com=12 192.0.2.1=2 [2001:DB8::1]=1 ")
        << opts;
    EXPECT_EQ(top("registrable_domains"), "example.org=5000 example.com=12 ")
        << opts;
    EXPECT_EQ(top("schemes"), "https=5000 http=15 ") << opts;
    EXPECT_EQ(j["top"]["hosts"]["undercount"], 0) << opts;
    j.erase("throughput");
    if (first.is_null()) first = j;
    EXPECT_EQ(j, first) << opts;
  }
  // Past 2 * 65,536 registrable domains they are trimmed, the hosts kept
  // are looked up again, and an IP address still has none.
  std::string many;
  for (int i = 0; i < 140000; ++i) {
    many += "http://d" + std::to_string(i) + ".com/\n";
    if (i % 100 == 0) many += "http://192.0.2.7/\nhttp://www.hot.com/\n";
  }
  Write(Path("domains.txt"), many);
  const Result r = Run("stats --format=json --top=2 " + Path("domains.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& domains = j["top"]["registrable_domains"];
  EXPECT_GT(domains["undercount"].get<int>(), 0);
  ExpectFirstWithinBound(domains, "hot.com", 1400);
  const auto& hosts = j["top"]["hosts"];
  ExpectFirstWithinBound(hosts, "192.0.2.7", 1400);
  EXPECT_EQ(hosts["top"][1]["value"], "www.hot.com") << hosts;
  for (const auto& d : domains["top"]) {  // none of 192.0.2.7
    const std::string name = d["value"];
    EXPECT_EQ(name.substr(name.size() - 4), ".com") << name;
  }
}

// Past NameCounts::kKept names, counts are trimmed with a bound that is
// reported: a frequent host stays first among 200,000 others.
TEST_F(CliTest, StatsTopStaysBoundedAndKeepsTheFrequent) {
  std::string in;
  for (int i = 0; i < 200000; ++i) {
    in += "http://h" + std::to_string(i) + ".example/\n";
    if (i % 200 == 0) in += "http://hot.example/\n";
  }
  Write(Path("many.txt"), in);
  const Result r = Run("stats --format=json --top=1 " + Path("many.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& hosts = j["top"]["hosts"];
  ExpectFirstWithinBound(hosts, "hot.example", 1000);
  EXPECT_LE(hosts["top"][0]["count"].get<int>(), 1000);
  // Trimmed: more names than it keeps.
  EXPECT_GT(hosts["undercount"].get<int>(), 0);
  // The trims fall between chunks: at another --chunk-size the counts may
  // differ, each within its own bound; at another --threads they do not.
  for (const char* chunk : {"64K", "4M"}) {
    nlohmann::json one;
    for (const char* threads : {"1", "3"}) {
      nlohmann::json k = nlohmann::json::parse(
          Run(std::string("stats --format=json --top=1 --chunk-size=") +
              chunk + " --threads=" + threads + " " + Path("many.txt")).out);
      k.erase("throughput");
      const auto& h = k["top"]["hosts"];
      ExpectFirstWithinBound(h, "hot.example", 1000);
      EXPECT_LE(h["top"][0]["count"].get<int>(), 1000) << chunk;
      if (one.is_null()) {
        one = k;
      } else {
        EXPECT_EQ(k, one) << chunk;
      }
    }
  }
}

// The (data-key, number) pairs of a page: each `data-key="K">N<`.
std::vector<std::pair<std::string, std::string>> DataKeys(
    const std::string& page) {
  std::vector<std::pair<std::string, std::string>> cells;
  const std::string mark = "data-key=\"";
  for (size_t at = page.find(mark); at != std::string::npos;
       at = page.find(mark, at + 1)) {
    const size_t key = at + mark.size();
    const size_t quote = page.find('"', key);
    if (quote == std::string::npos || page.compare(quote, 2, "\">") != 0)
      continue;
    size_t end = quote + 2;
    while (end < page.size() && page[end] >= '0' && page[end] <= '9') ++end;
    if (end == quote + 2 || end >= page.size() || page[end] != '<') continue;
    cells.emplace_back(page.substr(key, quote - key),
                       page.substr(quote + 2, end - quote - 2));
  }
  return cells;
}

// Checks every number of a page against the value of `j` its data-key
// names (top.LIST.I: the count of the I-th entry; a path that ends on an
// entry {"value", "count"}: its count), and that a number in a chart
// (a row with a bar) is never 0; returns how many it checked.
size_t CheckDataKeys(const std::string& page, const nlohmann::json& j) {
  size_t checked = 0;
  for (const auto& [key, number] : DataKeys(page)) {
    std::vector<std::string> path;
    std::istringstream parts(key);
    for (std::string p; std::getline(parts, p, '.');) path.push_back(p);
    const nlohmann::json* v = &j;
    if (path[0] == "top") {  // top.LIST.I: the count of the I-th entry
      v = &j["top"][path[1]]["top"][std::stoul(path[2])]["count"];
    } else {
      for (const std::string& p : path) {
        if (v->is_array() && std::stoul(p) >= v->size()) {
          ADD_FAILURE() << key;
          return checked;
        }
        v = v->is_array() ? &(*v)[std::stoul(p)] : &(*v)[p];
      }
      if (v->is_object()) v = &(*v)["count"];
    }
    if (!v->is_number()) {
      ADD_FAILURE() << key << " is not a number in the JSON";
      continue;
    }
    EXPECT_EQ(std::to_string(v->get<uint64_t>()), number) << key;
    ++checked;
  }
  // Rows of 0 are left out of the charts (only the summary shows them).
  const std::string bar_row = "\"></td><td class=\"b\">";
  for (size_t at = page.find(bar_row); at != std::string::npos;
       at = page.find(bar_row, at + 1))
    EXPECT_NE(page.substr(page.rfind('>', at - 1), 3), ">0<")
        << page.substr(page.rfind("data-key", at), 60);
  return checked;
}

// Headless Chromium (from Debian) on `page`: a screenshot with no console
// error, the DOM it reads (*dom), and the number of pages it prints to a
// PDF; false when Chromium is not installed.
bool RenderInChromium(const std::string& dir, const std::string& page,
                      std::string* dom, int* pages) {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) return false;
  const std::string chromium =
      "chromium --headless --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir='" + dir + "/profile' --enable-logging=stderr "
      "--v=0 --window-size=1280,1600 ";
  const Result shot = RunShell(
      chromium + "--screenshot='" + dir + "/report.png' 'file://" + page +
          "' > '" + dir + "/stdout' 2> '" + dir + "/stderr'",
      dir);
  EXPECT_EQ(shot.status, 0) << shot.err;
  const std::string png = Slurp(dir + "/report.png");
  EXPECT_EQ(png.substr(0, 4), "\x89PNG");
  EXPECT_GT(png.size(), 10000u);  // drawn, not a blank page
  EXPECT_EQ(shot.err.find("CONSOLE"), std::string::npos) << shot.err;
  EXPECT_EQ(shot.err.find("Uncaught"), std::string::npos) << shot.err;
  *dom = RunShell(chromium + "--dump-dom 'file://" + page + "' > '" + dir +
                      "/stdout' 2> '" + dir + "/stderr'",
                  dir)
             .out;
  // Printed (US Letter, the browser's default): its page tree's /Count.
  const Result pdf = RunShell(chromium + "--no-pdf-header-footer "
                              "--print-to-pdf='" + dir + "/report.pdf' "
                              "'file://" + page + "' > '" + dir +
                                  "/stdout' 2> '" + dir + "/stderr'",
                              dir);
  EXPECT_EQ(pdf.status, 0) << pdf.err;
  const std::string text = Slurp(dir + "/report.pdf");
  *pages = 0;
  for (size_t at = text.find("/Count "); at != std::string::npos;
       at = text.find("/Count ", at + 1))
    *pages = std::max(*pages, std::atoi(text.c_str() + at + 7));
  return true;
}

// --html=FILE: one page, no script and nothing fetched, whose every
// number is --format=json's; rendered by a real browser (headless
// Chromium, from Debian) without a console error.
TEST_F(CliTest, StatsHtmlReportHoldsTheJsonNumbersAndRendersInChromium) {
  const std::string input = kTricky + " " + Path("log.txt");
  Write(Path("log.txt"), "http://www.example.com/a?x=1&%3Cb%3E=2\n"
                         "http://a<b/\nhttps://example.com/\n");
  const Result r = Run("stats --quiet --top=5 --html=" + Path("report.html") +
                       " " + input);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("uriscan stats: RFC 3986"), std::string::npos);
  const nlohmann::json j =
      nlohmann::json::parse(Run("stats --format=json --top=5 " + input).out);
  const std::string page = Slurp(Path("report.html"));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* fetch : {"<script", "src=", "href=", "@import", "url("})
    EXPECT_EQ(page.find(fetch), std::string::npos) << fetch;
  // Every number of the page against the JSON value its data-key names.
  const size_t checked = CheckDataKeys(page, j);
  EXPECT_GT(checked, 30u);
  // A label with markup in it is text, not markup: the parameter name
  // "%3Cb%3E" decodes to "<b>", which the page shows as text.
  EXPECT_NE(page.find("&lt;b&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  std::string dom;
  int pages = 0;
  if (!RenderInChromium(dir_, Path("report.html"), &dom, &pages))
    GTEST_SKIP() << "chromium is not installed (tools/setup.sh test does)";
  // The browser's own reading of the page holds every number too.
  EXPECT_EQ(DataKeys(dom).size(), checked);
  EXPECT_EQ(pages, 1);
  EXPECT_EQ(Run("stats --html=/nonexistent/dir/r.html " + input).status, 2);
  // A new file only: an existing one (or a link planted in its place) is
  // refused before any input is read, and left as it was.
  const Result again = Run("stats --html=" + Path("report.html") + " " + input);
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("exists"), std::string::npos) << again.err;
  EXPECT_EQ(Slurp(Path("report.html")), page);
  ASSERT_EQ(symlink(Path("target.html").c_str(), Path("link.html").c_str()), 0);
  EXPECT_EQ(Run("stats --html=" + Path("link.html") + " " + input).status, 2);
  EXPECT_EQ(access(Path("target.html").c_str(), F_OK), -1);
  // --force replaces the file, whole; a link is replaced, its target (here
  // a file of its own) never written.
  Write(Path("target.html"), "mine\n");
  Write(Path("report.html"), "old\n");
  const Result forced = Run("stats --quiet --force --html=" +
                            Path("report.html") + " " + input);
  EXPECT_EQ(forced.status, 0) << forced.err;
  EXPECT_EQ(Slurp(Path("report.html")).rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Run("stats --quiet --force --html=" + Path("link.html") + " " +
                input).status, 0);
  EXPECT_EQ(Slurp(Path("link.html")).rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Slurp(Path("target.html")), "mine\n");
  struct stat st;
  ASSERT_EQ(lstat(Path("link.html").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(Run("stats --force " + input).err,
            "uriscan: --force applies to --html\n"
            "try 'uriscan stats --help'\n");
}

// --from=clf|combined: the log report (requests by status and hour, bytes,
// top paths, referring domains and user agents, problems with their first
// lines), the same in JSON and text whatever the threads and chunks.
TEST_F(CliTest, StatsLogReportCountsWhatALogHolds) {
  const auto line = [](const std::string& time, const std::string& request,
                       const std::string& status, const std::string& bytes,
                       const std::string& referer, const std::string& agent) {
    return "10.0.0.1 - - [" + time + "] \"" + request + "\" " + status + " " +
           bytes + " \"" + referer + "\" \"" + agent + "\"\n";
  };
  const std::string t0 = "10/Oct/2000:13:55:36 -0700";  // 20:55 UTC
  const std::string t1 = "11/Oct/2000:00:10:00 +0000";  // 00:10 UTC
  std::string log;
  log += line(t0, "GET /a HTTP/1.1", "200", "100",
              "http://www.Example.co.uk/x", "ua/1");                  // 1
  log += line(t0, "GET /a?q=1 HTTP/1.1", "200", "50",
              "https://shop.example.co.uk/", "ua/1");                 // 2
  log += line(t1, "GET /b HTTP/1.1", "404", "-", "-", "ua/2");        // 3
  log += line(t1, "-", "408", "0", "-", "-");                         // 4
  log += "not-a-log-line\n";                                          // 5
  log += line(t1, "GET /c%zz HTTP/1.1", "500", "7",
              "http://192.0.2.1/p", "ua/1");                          // 6
  log += line("bad time", "GET /a HTTP/1.1", "301", "1", "not a uri",
              "ua/3");                                                 // 7
  log += line(t1, "GET /d HTTP/1.1", "2x", "1", "-", "ua/2");         // 8
  for (int i = 0; i < 5; ++i) log += "junk " + std::to_string(i) + "\n";
  log += line(t1, "GET /" + std::string(300, 'z') + " HTTP/1.1", "200", "1",
              "-", "ua/1");                                            // 14
  Write(Path("a.log"), log);
  const Result r = Run("stats --format=json --top=5 --from=combined "
                       "--max-line=200 " + Path("a.log"));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& report = j["log"]["report"];
  EXPECT_EQ(report["requests"], 7);  // the lines in the format
  EXPECT_EQ(report["status_classes"],
            nlohmann::json::parse(R"({"1xx":0,"2xx":2,"3xx":1,"4xx":2,)"
                                  R"("5xx":1,"other":1})"));
  EXPECT_EQ(report["status_codes"],
            nlohmann::json::parse(R"({"200":2,"301":1,"404":1,"408":1,)"
                                  R"("500":1})"));
  EXPECT_EQ(report["no_status"], 1);
  std::vector<int> hours(24, 0);
  hours[20] = 2;
  hours[0] = 4;
  EXPECT_EQ(report["hours_utc"], nlohmann::json(hours));
  EXPECT_EQ(report["no_time"], 1);
  EXPECT_EQ(report["bytes_sent"], 159);
  EXPECT_EQ(report["no_size"], 1);
  const auto top = [&](const char* list) { return TopList(report[list]); };
  // Paths of the valid references (the line with "/c%zz" has none).
  EXPECT_EQ(top("paths"), "/a=3 /b=1 /d=1 ");
  // A referer's registrable domain, or its host when it has none; "-" and
  // what is no URI with a host are not counted.
  EXPECT_EQ(top("referring_domains"), "example.co.uk=2 192.0.2.1=1 ");
  EXPECT_EQ(top("user_agents"), "ua/1=3 ua/2=2 ua/3=1 ");
  // Problems, most frequent first, each with its first three lines.
  const nlohmann::json& problems = report["problems"];
  ASSERT_EQ(problems.size(), 3u) << problems;
  EXPECT_EQ(problems[0]["kind"], "log-format");
  EXPECT_EQ(problems[0]["message"], "expected host, ident and user");
  EXPECT_EQ(problems[0]["count"], 6);
  ASSERT_EQ(problems[0]["samples"].size(), 3u);
  EXPECT_EQ(problems[0]["samples"][0],
            nlohmann::json({{"file", Path("a.log")}, {"line", 5},
                            {"column", 1}, {"text", "not-a-log-line"}}));
  EXPECT_EQ(problems[0]["samples"][1]["line"], 9);
  EXPECT_EQ(problems[0]["samples"][1]["column"], 6);
  EXPECT_EQ(problems[0]["samples"][2]["text"], "junk 1");
  EXPECT_EQ(problems[1]["kind"], "pct-encoded");
  EXPECT_EQ(problems[1]["count"], 1);
  EXPECT_EQ(problems[1]["samples"][0],
            nlohmann::json({{"file", Path("a.log")}, {"line", 6},
                            {"column", 3}, {"text", "/c%zz"}}));
  // A line too long is not kept: its sample has no text.
  EXPECT_EQ(problems[2]["samples"][0],
            nlohmann::json({{"file", Path("a.log")}, {"line", 14},
                            {"column", 201}, {"text", ""}}));
  // The same report whatever the threads and chunks, and from stdin.
  nlohmann::json a = j;
  a.erase("throughput");
  for (const char* opts : {"--threads=1", "--threads=2 --chunk-size=1",
                           "--threads=3 --chunk-size=100"}) {
    nlohmann::json b = nlohmann::json::parse(
        Run(std::string("stats --format=json --top=5 --from=combined "
                        "--max-line=200 ") +
            opts + " " + Path("a.log")).out);
    b.erase("throughput");
    EXPECT_EQ(a, b) << opts;
  }
  const nlohmann::json piped = nlohmann::json::parse(
      Run("stats --format=json --from=combined", log).out);
  EXPECT_EQ(piped["log"]["report"]["problems"][0]["samples"][0]["file"],
            "<stdin>");
  // Two files: each sample names its file and line there.
  const nlohmann::json two = nlohmann::json::parse(
      Run("stats --format=json --from=combined --max-line=200 " +
          Path("a.log") + " " + Path("a.log")).out);
  EXPECT_EQ(two["log"]["report"]["requests"], 14);
  EXPECT_EQ(two["log"]["report"]["problems"][0]["count"], 12);
  EXPECT_EQ(two["log"]["report"]["problems"][0]["samples"][2]["line"], 10);
  // The text report, after the counts.
  const Result text =
      Run("stats --top=1 --from=combined --max-line=200 " + Path("a.log"));
  for (const char* want :
       {"  log report (combined)\n    requests           7\n",
        "    status 2xx         2\n      200              2\n",
        "    status other       1\n",
        "    by hour (UTC)      00 4  01 0  02 0  03 0  04 0  05 0\n",
        "    bytes sent         159\n    no size (\"-\")      1\n",
        "      log-format: expected host, ident and user  6\n        " ,
        "a.log:5:1 \"not-a-log-line\"\n",
        "  top paths        (--top=1)\n    \"/a\" 3\n",
        "  top referring domains (--top=1)\n    \"example.co.uk\" 2\n",
        "  top user agents  (--top=1)\n    \"ua/1\" 3\n"})
    EXPECT_NE(text.out.find(want), std::string::npos) << want << text.out;
  // clf has no referer or user agent; other formats no report.
  const nlohmann::json clf = nlohmann::json::parse(
      Run("stats --format=json --from=clf", "1.2.3.4 - - [" + t1 +
          "] \"GET /x HTTP/1.0\" 204 -\n").out);
  EXPECT_EQ(clf["log"]["report"]["status_codes"]["204"], 1);
  EXPECT_EQ(clf["log"]["report"]["user_agents"]["top"].size(), 0u);
  EXPECT_TRUE(nlohmann::json::parse(
                  Run("stats --format=json --from=text", "http://a/\n").out)
                  ["log"]["report"].is_null());
}

// The log report as a page: the shared access log's fits two printed
// pages in headless Chromium, every number equal to the JSON's, with the
// samples of each problem and the long tables folded.
TEST_F(CliTest, StatsLogReportPageFitsTwoPagesInChromium) {
  const std::string log =
      std::string(URISCAN_SHARED_CORPUS_DIR) + "/apache_access.log";
  if (access(log.c_str(), R_OK) != 0)
    GTEST_SKIP() << log << " is not there (the shared corpus)";
  // 15 status codes: a table longer than the page shows unfolded.
  std::string more;
  for (int code = 200; code < 215; ++code)
    more += "1.2.3.4 - - [11/Oct/2000:00:10:00 +0000] \"GET /x HTTP/1.1\" " +
            std::to_string(code) + " 1 \"-\" \"u\"\n";
  Write(Path("more.log"), more);
  const std::string input = log + " " + Path("more.log");
  const Result r = Run("stats --quiet --from=combined --html=" +
                       Path("report.html") + " " + input);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(
      Run("stats --format=json --from=combined " + input).out);
  const std::string page = Slurp(Path("report.html"));
  const size_t checked = CheckDataKeys(page, j);
  for (const char* key :
       {"log.report.status_classes.2xx", "log.report.status_codes.404",
        "log.report.hours_utc.13", "log.report.paths.top.0",
        "log.report.referring_domains.top.0", "log.report.user_agents.top.9",
        "log.report.problems.0.samples.0.line", "log.report.bytes_sent"})
    EXPECT_NE(page.find(std::string("data-key=\"") + key + "\""),
              std::string::npos) << key;
  EXPECT_NE(page.find("<code>/demo/jquery-magicpuff.html?iframe=true&amp;"),
            std::string::npos);
  // 21 status codes, 10 shown: the rest folded.
  EXPECT_NE(page.find("<details><summary>11 more</summary>"),
            std::string::npos);
  EXPECT_EQ(page.find("data-key=\"errors.ipv6\""), std::string::npos);
  std::string dom;
  int pages = 0;
  if (!RenderInChromium(dir_, Path("report.html"), &dom, &pages))
    GTEST_SKIP() << "chromium is not installed (tools/setup.sh test does)";
  EXPECT_EQ(DataKeys(dom).size(), checked);
  EXPECT_GE(pages, 1);
  EXPECT_LE(pages, 2);
}

}  // namespace uriscan_cli_test
