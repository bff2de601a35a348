// SPDX-License-Identifier: MIT
// read_uris(path, format := 'lines', field := NULL, base := NULL,
// lenient := false): the references `uriscan extract` writes (or, for
// 'lines', every line as the other commands read it) as rows of file,
// line, uri, in input order. The command's own reader and extractors do
// the work: gzip and zstd by their first bytes, records cut where the
// command cuts them.
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "duckdb/api.h"
#include "kernels/utf8.h"
#include "src/cli/extract.h"
#include "src/cli/input.h"
#include "uriscan/uriscan.h"

DUCKDB_EXTENSION_EXTERN

namespace uriscan {
namespace duck {
namespace {

using cli::ExtractOptions;
using cli::LineReader;
using cli::LogFormat;

// The command's defaults: --chunk-size and --max-line.
constexpr size_t kChunkBytes = 4u << 20;
constexpr size_t kMaxLine = 16u << 20;

struct Options {
  std::vector<std::string> files;
  bool lines = true;  // format 'lines': every line is a row
  ExtractOptions extract;
  bool header_field = false;  // tsv, csv: field names a header column
  bool lenient = false;
  std::string base_text;
  UriReference base;
};

// VARCHAR holds UTF-8: each maximal subpart of an ill-formed sequence (a
// Latin-1 byte of a log line, a cut sequence) becomes one U+FFFD, the
// practice Unicode recommends (chapter 3, "U+FFFD Substitution of Maximal
// Subparts") and Python's errors="replace" follows.
void AppendUtf8(std::string_view s, std::string* out) {
  for (size_t i = 0; i < s.size();) {
    // A run of ASCII and well-formed sequences, appended at once.
    size_t end = i;
    while (end < s.size()) {
      const unsigned char c = static_cast<unsigned char>(s[end]);
      const size_t n = c < 0x80 ? 1 : Utf8SequenceAt(s, end);
      if (n == 0) break;
      end += n;
    }
    out->append(s.data() + i, end - i);
    i = end;
    if (i == s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    // The longest prefix of a well-formed sequence at i, at least a byte.
    const Utf8Lead lead = Utf8LeadOf(c);
    size_t k = 1;
    if (lead.length && i + 1 < s.size()) {
      const unsigned char d = static_cast<unsigned char>(s[i + 1]);
      if (d >= lead.second_low && d <= lead.second_high) {
        k = 2;
        while (k < lead.length && i + k < s.size() &&
               (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80)
          ++k;
      }
    }
    out->append("\xEF\xBF\xBD");
    i += k;
  }
}

// The rows read but not yet handed to DuckDB.
struct Row {
  uint64_t line;
  size_t begin, end;  // in Pending::text
};
struct Pending {
  size_t file = 0;  // the rows' file, in Options::files
  std::string text;
  std::vector<Row> rows;
  size_t next = 0;
  void Clear() {
    text.clear();
    rows.clear();
    next = 0;
  }
  // `repair`: the line as --lenient repairs it (format 'lines'; the
  // extractors repair what they find themselves).
  void Add(uint64_t line, std::string_view uri, bool repair) {
    const size_t begin = text.size();
    thread_local std::string repaired;
    if (repair) {
      repaired.clear();
      RepairReference(uri, &repaired);
      uri = repaired;
    }
    AppendUtf8(uri, &text);
    rows.push_back({line, begin, text.size()});
  }
};

// The files, read a run of lines at a time into rows.
struct State {
  const Options* options;
  size_t file = 0;  // the file being read, or files.size() at the end
  std::unique_ptr<LineReader> reader;
  uint64_t line = 0;  // lines of the file handed out so far
  size_t column = 0;  // tsv, csv: the header's column
};

[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error(message);
}

// Opens file s->file; false past the last.
bool OpenNext(State* s) {
  s->reader.reset();
  if (s->file >= s->options->files.size()) return false;
  const std::string& path = s->options->files[s->file];
  auto reader = std::make_unique<LineReader>(kChunkBytes, kMaxLine);
  std::string error;
  if (!reader->Open(path, &error)) Fail(path + ": " + error);
  s->reader = std::move(reader);
  s->line = 0;
  return true;
}

// Next() with the reader's failures as errors.
LineReader::Status NextLines(State* s, cli::Lines* lines) {
  const LineReader::Status st = s->reader->Next(lines);
  if (st == LineReader::Status::kError)
    Fail(s->options->files[s->file] + ": " + s->reader->error());
  return st;
}

// Reads the next run of the current file into *p; false at the file's end.
bool ReadMore(State* s, Pending* p) {
  const Options& o = *s->options;
  cli::Lines lines;
  LineReader::Status st = NextLines(s, &lines);
  if (st == LineReader::Status::kEnd) return false;
  if (st == LineReader::Status::kTooLongLine) {  // skipped, as the command
    ++s->line;
    return true;
  }
  if (o.lines) {
    std::string_view text = lines.text;
    while (!text.empty()) {
      const size_t nl = std::min(text.find('\n'), text.size());
      std::string_view line = text.substr(0, nl);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      p->Add(++s->line, line, o.lenient);
      text.remove_prefix(std::min(nl + 1, text.size()));
    }
    return true;
  }
  // Whole records: what RecordsEnd() says ends on a record boundary,
  // reading on (doubling) when a record goes past the run.
  size_t keep = cli::RecordsEnd(lines.text, o.extract, s->reader->at_end());
  size_t want = lines.text.size();
  while (keep == 0 && want < 2 * kMaxLine) {
    s->reader->Unread(lines.text.size());
    want *= 2;
    s->reader->set_min_bytes(want);
    st = NextLines(s, &lines);
    s->reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return st != LineReader::Status::kEnd;
    keep = cli::RecordsEnd(lines.text, o.extract, s->reader->at_end());
  }
  if (keep == 0) keep = lines.text.size();  // a record past --max-line
  s->reader->Unread(lines.text.size() - keep);
  std::string_view text = lines.text.substr(0, keep);
  ExtractOptions x = o.extract;
  x.with_line = true;
  x.lenient = o.lenient;  // the extractor repairs, before --base resolves
  size_t skip = 0;
  if (s->line == 0 && o.header_field) {
    if (!cli::FindColumn(text, x, &s->column, &skip))
      Fail(o.files[s->file] + ": no column named '" + x.field_name +
           "' in the header row");
  }
  x.column = o.header_field ? s->column : x.column;
  const uint64_t header_lines =
      std::count(text.begin(), text.begin() + skip, '\n');
  thread_local std::string kept, out;
  thread_local std::vector<uint64_t> long_lines, long_records;
  thread_local std::vector<cli::ExtractProblem> problems;
  long_lines.clear();
  long_records.clear();
  problems.clear();
  out.clear();
  const std::string_view body =
      x.from == LogFormat::kTsv || x.from == LogFormat::kCsv
          ? cli::WithoutLongRecords(text.substr(skip), kMaxLine, x, &kept,
                                    &long_lines, &long_records)
          : cli::WithoutLongLines(text.substr(skip), kMaxLine, &kept,
                                  &long_lines);
  cli::Extract(body, x, s->line + header_lines + 1, &out, &problems);
  s->line += CountLines(text);
  // "LINE\tURI\n" per reference.
  std::string_view rest = out;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view record = rest.substr(0, nl);
    const size_t tab = record.find('\t');
    uint64_t n = 0;
    for (char c : record.substr(0, tab)) n = n * 10 + static_cast<uint64_t>(c - '0');
    p->Add(n, record.substr(tab + 1), false);
    rest.remove_prefix(nl + 1);
  }
  return true;
}

// Bind: the arguments, checked as the command checks its options.
std::vector<std::string> FilesOf(duckdb_value path) {
  std::vector<std::string> patterns;
  duckdb_logical_type type = duckdb_get_value_type(path);
  const duckdb_type id = duckdb_get_type_id(type);
  if (id == DUCKDB_TYPE_VARCHAR) {
    char* text = duckdb_get_varchar(path);
    patterns.emplace_back(text);
    duckdb_free(text);
  } else if (id == DUCKDB_TYPE_LIST) {
    const idx_t n = duckdb_get_list_size(path);
    for (idx_t k = 0; k < n; ++k) {
      duckdb_value item = duckdb_get_list_child(path, k);
      char* text = duckdb_get_varchar(item);
      patterns.emplace_back(text);
      duckdb_free(text);
      duckdb_destroy_value(&item);
    }
  } else {
    Fail("path: expected a file name, a glob or a list of them");
  }
  std::vector<std::string> files;
  for (const std::string& pattern : patterns) {
    if (pattern.find_first_of("*?[") == std::string::npos) {
      files.push_back(pattern);  // opened (and its error given) in order
      continue;
    }
    glob_t g{};
    const int rc = glob(pattern.c_str(), 0, nullptr, &g);
    if (rc == GLOB_NOMATCH) {
      globfree(&g);
      Fail("path: no file matches '" + pattern + "'");
    }
    if (rc != 0) {
      globfree(&g);
      Fail("path: cannot read the directories of '" + pattern + "'");
    }
    std::vector<std::string> found(g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) Fail("path: no file given");
  for (const std::string& f : files) {
    struct stat st;
    if (stat(f.c_str(), &st) != 0)
      Fail(f + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) Fail(f + ": a directory, not a file");
  }
  return files;
}

std::string TextOf(duckdb_value v) {
  char* text = duckdb_get_varchar(v);
  std::string out = text ? text : "";
  duckdb_free(text);
  return out;
}

void CheckOptions(const std::string& format, const std::string& field,
                  bool has_field, bool has_base, Options* o) {
  ExtractOptions& x = o->extract;
  o->lines = format == "lines";
  if (!o->lines && !cli::ParseLogFormat(format, &x.from))
    Fail("format: '" + format +
         "' is not a format; expected lines, text, clf, combined, tsv, csv "
         "or jsonl");
  x.max_record = kMaxLine;
  if (has_field && field.empty()) Fail("field: takes a name or a number");
  if (o->lines || x.from == LogFormat::kText) {
    if (has_field) Fail("field: format '" + format + "' takes no field");
  } else if (x.from == LogFormat::kClf || x.from == LogFormat::kCombined) {
    if (has_field && field != "target" && field != "referer")
      Fail("field: '" + field + "'; expected target or referer");
    if (field == "referer" && x.from == LogFormat::kClf)
      Fail("field: referer needs format 'combined' (the Common Log Format "
           "has no Referer)");
    x.referer = field == "referer";
  } else if (x.from == LogFormat::kTsv || x.from == LogFormat::kCsv) {
    if (has_field &&
        field.find_first_not_of("0123456789") == std::string::npos) {
      const unsigned long n =
          field.size() > 9 ? 0 : std::strtoul(field.c_str(), nullptr, 10);
      if (n == 0) Fail("field: columns are numbered from 1 to 999999999");
      x.column = n - 1;
    } else if (has_field) {
      o->header_field = true;
      x.field_name = field;
    }
  } else if (x.from == LogFormat::kJsonl) {
    if (!has_field) Fail("field: format 'jsonl' needs the key to read");
    x.field_name = field;
  }
  if (has_base) {
    if (o->lines || (x.from != LogFormat::kClf &&
                     x.from != LogFormat::kCombined))
      Fail("base: applies to formats 'clf' and 'combined'");
    if (x.referer) Fail("base: applies to request targets, not to referers");
    o->base = ParseUriReference(o->base_text);
    if (!o->base.valid() || !o->base.scheme())
      Fail("base: '" + o->base_text +
           "' is not an absolute URI (RFC 3986 sec. 5.1)");
    x.base = &o->base;
  }
}

// The rows of the next run (of one file); false after the last file.
bool NextRun(State* s, Pending* p) {
  for (;;) {
    if (!s->reader && !OpenNext(s)) return false;
    p->Clear();
    p->file = s->file;
    if (ReadMore(s, p)) return true;  // (it may hold no row)
    ++s->file;
    s->reader.reset();
  }
}

// A thread of the function's own reads and extracts the runs ahead of
// DuckDB, which takes them in order: two runs wait at most (a few MiB).
class Prefetch {
 public:
  explicit Prefetch(const Options* o) {
    state_.options = o;
    thread_ = std::thread([this] { Produce(); });
  }
  ~Prefetch() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // The next run into *p; false after the last. A reading error comes
  // after the runs before it.
  bool Take(Pending* p) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (!ready_.empty()) {
      *p = std::move(ready_.front());
      ready_.pop_front();
      cv_.notify_all();
      return true;
    }
    if (!error_.empty()) Fail(error_);
    return false;
  }

 private:
  void Produce() {
    try {
      for (;;) {
        Pending p;
        if (!NextRun(&state_, &p)) break;
        if (p.rows.empty()) continue;
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || ready_.size() < 2; });
        if (stop_) return;
        ready_.push_back(std::move(p));
        cv_.notify_all();
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(m_);
      error_ = e.what();
    }
    std::lock_guard<std::mutex> lock(m_);
    done_ = true;
    cv_.notify_all();
  }

  State state_;  // the producer's alone
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Pending> ready_;
  bool done_ = false, stop_ = false;
  std::string error_;
  std::thread thread_;
};

struct Scanning {
  const Options* options;
  std::unique_ptr<Prefetch> prefetch;
  Pending current;
};

void DestroyOptions(void* p) { delete static_cast<Options*>(p); }
void DestroyScanning(void* p) { delete static_cast<Scanning*>(p); }

void Bind(duckdb_bind_info info) {
  auto o = std::make_unique<Options>();
  try {
    duckdb_value path = duckdb_bind_get_parameter(info, 0);
    if (!path || duckdb_is_null_value(path)) {
      if (path) duckdb_destroy_value(&path);
      Fail("path: NULL");
    }
    o->files = FilesOf(path);
    duckdb_destroy_value(&path);
    std::string format = "lines", field;
    bool has_field = false, has_base = false;
    const auto named = [&](const char* name, auto take) {
      duckdb_value v = duckdb_bind_get_named_parameter(info, name);
      if (v && !duckdb_is_null_value(v)) take(v);
      if (v) duckdb_destroy_value(&v);
    };
    named("format", [&](duckdb_value v) { format = TextOf(v); });
    named("field", [&](duckdb_value v) {
      field = TextOf(v);
      has_field = true;
    });
    named("base", [&](duckdb_value v) {
      o->base_text = TextOf(v);
      has_base = true;
    });
    named("lenient", [&](duckdb_value v) { o->lenient = duckdb_get_bool(v); });
    CheckOptions(format, field, has_field, has_base, o.get());
  } catch (const std::exception& e) {
    const std::string message = std::string("read_uris: ") + e.what();
    duckdb_bind_set_error(info, message.c_str());
    return;
  }
  duckdb_logical_type text = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_logical_type number = duckdb_create_logical_type(DUCKDB_TYPE_UBIGINT);
  duckdb_bind_add_result_column(info, "file", text);
  duckdb_bind_add_result_column(info, "line", number);
  duckdb_bind_add_result_column(info, "uri", text);
  duckdb_destroy_logical_type(&text);
  duckdb_destroy_logical_type(&number);
  duckdb_bind_set_bind_data(info, o.release(), DestroyOptions);
}

void Init(duckdb_init_info info) {
  auto* s = new Scanning;
  s->options = static_cast<const Options*>(duckdb_init_get_bind_data(info));
  duckdb_init_set_init_data(info, s, DestroyScanning);
  duckdb_init_set_max_threads(info, 1);  // input order
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* s = static_cast<Scanning*>(duckdb_function_get_init_data(info));
  try {
    if (!s->prefetch) s->prefetch = std::make_unique<Prefetch>(s->options);
    const size_t capacity = duckdb_vector_size();
    size_t n = 0;
    duckdb_vector file_v = duckdb_data_chunk_get_vector(output, 0);
    duckdb_vector line_v = duckdb_data_chunk_get_vector(output, 1);
    duckdb_vector uri_v = duckdb_data_chunk_get_vector(output, 2);
    auto* lines = static_cast<uint64_t*>(duckdb_vector_get_data(line_v));
    while (n < capacity) {
      Pending& p = s->current;
      if (p.next == p.rows.size()) {
        if (!s->prefetch->Take(&p)) break;
        continue;
      }
      const std::string& file = s->options->files[p.file];
      for (; p.next < p.rows.size() && n < capacity; ++p.next, ++n) {
        const Row& r = p.rows[p.next];
        duckdb_vector_assign_string_element_len(file_v, n, file.data(),
                                                file.size());
        lines[n] = r.line;
        duckdb_vector_assign_string_element_len(
            uri_v, n, p.text.data() + r.begin, r.end - r.begin);
      }
    }
    duckdb_data_chunk_set_size(output, n);
  } catch (const std::exception& e) {
    const std::string message = std::string("read_uris: ") + e.what();
    duckdb_function_set_error(info, message.c_str());
  }
}

}  // namespace

bool RegisterReadUris(duckdb_connection connection) {
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_table_function_set_name(f, "read_uris");
  duckdb_logical_type any = duckdb_create_logical_type(DUCKDB_TYPE_ANY);
  duckdb_logical_type text = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_logical_type flag = duckdb_create_logical_type(DUCKDB_TYPE_BOOLEAN);
  duckdb_table_function_add_parameter(f, any);
  duckdb_table_function_add_named_parameter(f, "format", text);
  duckdb_table_function_add_named_parameter(f, "field", text);
  duckdb_table_function_add_named_parameter(f, "base", text);
  duckdb_table_function_add_named_parameter(f, "lenient", flag);
  duckdb_destroy_logical_type(&any);
  duckdb_destroy_logical_type(&text);
  duckdb_destroy_logical_type(&flag);
  duckdb_table_function_set_bind(f, Bind);
  duckdb_table_function_set_init(f, Init);
  duckdb_table_function_set_function(f, Scan);
  const bool ok = duckdb_register_table_function(connection, f) == DuckDBSuccess;
  duckdb_destroy_table_function(&f);
  return ok;
}

}  // namespace duck
}  // namespace uriscan
