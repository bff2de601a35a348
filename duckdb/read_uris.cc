// SPDX-License-Identifier: MIT
// read_uris(path, format := 'lines', field := NULL, base := NULL,
// lenient := false): the references `uriscan extract` writes (or, for
// 'lines', every line as the other commands read it) as rows of file,
// line, uri, in input order, and a row for each line that gives none
// because it is malformed: its uri NULL, its problem said. The command's own reader and extractors do
// the work: gzip and zstd by their first bytes, records cut where the
// command cuts them.
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include "uriscan/ingest.h"
#include "uriscan/normalize.h"

DUCKDB_EXTENSION_EXTERN

namespace uriscan {
namespace duck {
namespace {

struct Options {
  std::vector<std::string> files;
  LogReaderOptions reader;  // the command's --max-line
  bool clf = false, combined = false;  // the log's fields are columns
  idx_t problem_column = 0;  // its index in the bind's columns
};

// uriscan_duckdb_interrupt(): DuckDB's C API lets a table function see no
// duckdb_interrupt() while it waits for input that brings no row (a FIFO
// with no writer, /dev/zero), so a host calls this beside it. Each scan
// notes the count when it starts; a scan that sees it move ends with an
// error (a scan of another connection too: an error, never fewer rows).
std::atomic<uint64_t> interrupts{0};

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


[[noreturn]] void Fail(const std::string& message) {
  throw std::runtime_error(message);
}

// The rows of a batch as DuckDB takes them: its text made valid UTF-8.
struct Pending {
  size_t file = 0;
  LogBatch batch;
  std::string text;  // each row's strings, as VARCHAR, in order
  struct Row {
    uint32_t uri, end;  // in text
  };
  struct FieldsRow {
    uint32_t client, method, referer, user_agent, end;  // in text
  };
  std::vector<FieldsRow> fields;
  std::vector<Row> rows;
  std::vector<Row> problems;  // "kind: message" of batch.problems[k]
  // Each row's problem (an index in problems, or -1): a line that gave a
  // reference and a problem (a combined line cut in its user agent).
  std::vector<int64_t> row_problem;
  // The output's rows in line order: k >= 0 is rows[k], k < 0 is
  // problems[-1 - k], the problem of a line that gave no reference.
  std::vector<int64_t> order;
  size_t next = 0;
  void Take(LogBatch* b) {
    file = b->file;
    std::swap(batch, *b);
    text.clear();
    rows.resize(batch.rows.size());
    fields.resize(batch.fields.size());
    problems.resize(batch.problems.size());
    next = 0;
    order.clear();
    row_problem.assign(rows.size(), -1);
    for (size_t i = 0, k = 0; i < rows.size() || k < problems.size();) {
      if (k == problems.size() ||
          (i < rows.size() && batch.rows[i].line < batch.problems[k].line)) {
        order.push_back(static_cast<int64_t>(i++));
      } else if (i < rows.size() &&
                 batch.rows[i].line == batch.problems[k].line) {
        row_problem[i] = static_cast<int64_t>(k++);  // marked in its row
      } else {
        order.push_back(-1 - static_cast<int64_t>(k++));
      }
    }
    for (size_t k = 0; k < problems.size(); ++k) {
      problems[k].uri = static_cast<uint32_t>(text.size());
      const LogProblem& q = batch.problems[k];
      AppendUtf8(q.kind + ": " + q.message, &text);
      problems[k].end = static_cast<uint32_t>(text.size());
    }
    const auto put = [&](TextSpan span, uint32_t* at) {
      *at = static_cast<uint32_t>(text.size());
      AppendUtf8(batch.Text(span), &text);
    };
    for (size_t i = 0; i < batch.rows.size(); ++i) {
      put(batch.rows[i].uri, &rows[i].uri);
      rows[i].end = static_cast<uint32_t>(text.size());
      if (i >= batch.fields.size()) continue;
      const LogFieldsRow& f = batch.fields[i];
      FieldsRow& out = fields[i];
      put(f.client, &out.client);
      put(f.method, &out.method);
      put(f.referer, &out.referer);
      put(f.user_agent, &out.user_agent);
      out.end = static_cast<uint32_t>(text.size());
    }
  }
};

// A thread of the function's own reads ahead of DuckDB, which takes the
// batches in order: two wait at most (a few MiB). Every wait is bounded:
// the reader's stop ends its waits, DuckDB's waits look at the interrupt
// count every 100 ms.
class Prefetch {
 public:
  Prefetch(const Options* o, const LogReaderOptions& options)
      : reader_(o->files, options),
        started_(interrupts.load(std::memory_order_acquire)) {
    thread_ = std::thread([this] { Produce(); });
  }
  ~Prefetch() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    reader_.Stop();  // a LIMIT met, an error: the reader's waits end
    cv_.notify_all();
    thread_.join();
  }
  enum class Got { kBatch, kNone, kEnd };
  // Whether a batch is queued or the reading has ended: a call after this
  // one will not wait for input.
  bool Queued() {
    std::lock_guard<std::mutex> lock(m_);
    return !ready_.empty() || done_;
  }
  // The next batch into *p; with `wait`, until one is read (or the end);
  // else kNone when none is ready. A reading error comes after the rows
  // before it.
  Got Take(Pending* p, bool wait) {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      if (!ready_.empty()) {
        p->Take(&ready_.front());
        ready_.pop_front();
        cv_.notify_all();
        return Got::kBatch;
      }
      if (done_) {
        if (!error_.empty()) Fail(error_);
        return Got::kEnd;
      }
      if (!wait) return Got::kNone;
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (interrupts.load(std::memory_order_acquire) != started_)
        Fail("interrupted");
    }
  }

 private:
  void Produce() {
    try {
      for (;;) {
        LogBatch b;
        if (!reader_.Next(&b)) break;
        if (b.rows.empty() && b.problems.empty()) continue;
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || ready_.size() < 2; });
        if (stop_) return;
        ready_.push_back(std::move(b));
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

  LogReader reader_;  // the producer's alone (but for Stop())
  const uint64_t started_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<LogBatch> ready_;
  bool done_ = false, stop_ = false;
  std::string error_;
  std::thread thread_;
};

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
      const bool null = !item || duckdb_is_null_value(item);
      char* text = null ? nullptr : duckdb_get_varchar(item);
      if (item) duckdb_destroy_value(&item);
      if (null || !text) Fail("path: NULL");
      patterns.emplace_back(text);
      duckdb_free(text);
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

// The columns of the table, by index (bind adds them in this order).
// (problem is the last column whatever the format: Init() maps its index.)
enum ColumnId : idx_t {
  kFile, kLine, kUri, kClient, kTime, kMethod, kStatus, kBytes, kReferer,
  kUserAgent, kProblem, kColumnIds
};

struct Scanning {
  const Options* options;
  LogReaderOptions reader;  // the log's fields only when a query reads one
  std::vector<idx_t> ids;   // the columns of the output, in its order
  std::unique_ptr<Prefetch> prefetch;
  Pending current;
};

void DestroyOptions(void* p) { delete static_cast<Options*>(p); }
void DestroyScanning(void* p) { delete static_cast<Scanning*>(p); }

void AddColumn(duckdb_bind_info info, const char* name, duckdb_type id) {
  duckdb_logical_type type = duckdb_create_logical_type(id);
  duckdb_bind_add_result_column(info, name, type);
  duckdb_destroy_logical_type(&type);
}

void Bind(duckdb_bind_info info) {
  auto o = std::make_unique<Options>();
  try {
    duckdb_value path = duckdb_bind_get_parameter(info, 0);
    if (!path || duckdb_is_null_value(path)) {
      if (path) duckdb_destroy_value(&path);
      Fail("path: NULL");
    }
    try {
      o->files = FilesOf(path);
    } catch (...) {
      duckdb_destroy_value(&path);
      throw;
    }
    duckdb_destroy_value(&path);
    LogReaderOptions& r = o->reader;
    // Runs of 1 MiB: memory is a few runs in flight (the reader's, two
    // waiting, DuckDB's), each held as bytes, rows and VARCHAR text.
    r.chunk_bytes = size_t{1} << 20;
    const auto named = [&](const char* name, auto take) {
      duckdb_value v = duckdb_bind_get_named_parameter(info, name);
      if (v && !duckdb_is_null_value(v)) take(v);
      if (v) duckdb_destroy_value(&v);
    };
    bool has_field = false;
    named("format", [&](duckdb_value v) { r.format = TextOf(v); });
    named("field", [&](duckdb_value v) {
      r.field = TextOf(v);
      has_field = true;
    });
    named("base", [&](duckdb_value v) { r.base = TextOf(v); });
    named("lenient", [&](duckdb_value v) { r.lenient = duckdb_get_bool(v); });
    if (has_field && r.field.empty()) Fail("field: takes a name or a number");
    o->clf = r.format == "clf";
    o->combined = r.format == "combined";
    r.log_fields = o->clf || o->combined;
    LogReader check(o->files, r);  // the options, as the command checks them
  } catch (const std::exception& e) {
    const std::string message = std::string("read_uris: ") + e.what();
    duckdb_bind_set_error(info, message.c_str());
    return;
  }
  AddColumn(info, "file", DUCKDB_TYPE_VARCHAR);
  AddColumn(info, "line", DUCKDB_TYPE_UBIGINT);
  AddColumn(info, "uri", DUCKDB_TYPE_VARCHAR);
  if (o->clf || o->combined) {
    AddColumn(info, "client", DUCKDB_TYPE_VARCHAR);
    AddColumn(info, "time", DUCKDB_TYPE_TIMESTAMP);
    AddColumn(info, "method", DUCKDB_TYPE_VARCHAR);
    AddColumn(info, "status", DUCKDB_TYPE_INTEGER);
    AddColumn(info, "bytes", DUCKDB_TYPE_BIGINT);
  }
  if (o->combined) {
    AddColumn(info, "referer", DUCKDB_TYPE_VARCHAR);
    AddColumn(info, "user_agent", DUCKDB_TYPE_VARCHAR);
  }
  AddColumn(info, "problem", DUCKDB_TYPE_VARCHAR);
  o->problem_column = o->combined ? kProblem : o->clf ? kReferer : kClient;
  duckdb_bind_set_bind_data(info, o.release(), DestroyOptions);
}

void Init(duckdb_init_info info) {
  auto* s = new Scanning;
  s->options = static_cast<const Options*>(duckdb_init_get_bind_data(info));
  s->reader = s->options->reader;
  // Projection pushdown: the columns the query reads (count(*) may read
  // none); the log's fields are parsed only when one of them is read.
  const idx_t n = duckdb_init_get_column_count(info);
  bool fields = false;
  for (idx_t k = 0; k < n; ++k) {
    idx_t id = duckdb_init_get_column_index(info, k);
    if (id == s->options->problem_column) id = kProblem;
    s->ids.push_back(id);
    fields |= id >= kClient && id <= kUserAgent;
  }
  s->reader.log_fields = fields;
  duckdb_init_set_init_data(info, s, DestroyScanning);
  duckdb_init_set_max_threads(info, 1);  // input order
}

// A column of the log's fields: NULL where the line lacks the field.
struct Column {
  duckdb_vector vector;
  uint64_t* validity = nullptr;
  explicit Column(duckdb_data_chunk output, idx_t k)
      : vector(duckdb_data_chunk_get_vector(output, k)) {}
  void Null(idx_t row) {
    if (!validity) {
      duckdb_vector_ensure_validity_writable(vector);
      validity = duckdb_vector_get_validity(vector);
    }
    duckdb_validity_set_row_invalid(validity, row);
  }
  template <class T>
  T* Data() {
    return static_cast<T*>(duckdb_vector_get_data(vector));
  }
  void Text(idx_t row, const std::string& text, uint32_t begin, uint32_t end) {
    duckdb_vector_assign_string_element_len(vector, row, text.data() + begin,
                                            end - begin);
  }
};

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  auto* s = static_cast<Scanning*>(duckdb_function_get_init_data(info));
  try {
    const Options& o = *s->options;
    if (!s->prefetch)
      s->prefetch = std::make_unique<Prefetch>(s->options, s->reader);
    const size_t capacity = duckdb_vector_size();
    size_t n = 0;
    // The output's vectors by column id (null: a column not read).
    std::unique_ptr<Column> cols[kColumnIds];
    for (size_t k = 0; k < s->ids.size(); ++k) {
      if (s->ids[k] < kColumnIds)
        cols[s->ids[k]] = std::make_unique<Column>(output, k);
    }
    Column* const file_c = cols[kFile].get();
    Column* const uri_c = cols[kUri].get();
    auto* lines = cols[kLine] ? cols[kLine]->Data<uint64_t>() : nullptr;
    const bool logs = s->reader.log_fields;
    Column* const client = cols[kClient].get();
    Column* const time = cols[kTime].get();
    Column* const method = cols[kMethod].get();
    Column* const status = cols[kStatus].get();
    Column* const bytes = cols[kBytes].get();
    Column* const referer = cols[kReferer].get();
    Column* const agent = cols[kUserAgent].get();
    Column* const problem = cols[kProblem].get();
    while (n < capacity) {
      Pending& p = s->current;
      if (p.next == p.order.size()) {
        // Rows in hand go out at once rather than wait for more input
        // (a LIMIT may be met by them; the next file may be a FIFO).
        const Prefetch::Got got = s->prefetch->Take(&p, n == 0);
        if (got != Prefetch::Got::kBatch) break;
        continue;
      }
      const std::string& file = o.files[p.file];
      // DuckDB's LIMIT over a scan finishes when it is handed the chunk
      // after the one that met it: if that chunk had to wait for input
      // (a FIFO whose writer is quiet, a line being skipped for ever), the
      // query would wait with its rows in hand. So while no batch is
      // queued, the last rows in hand are kept, half of them, for the
      // next call.
      size_t until = p.order.size();
      bool hold = false;
      if (until - p.next <= capacity - n && until - p.next > 1 &&
          !s->prefetch->Queued()) {
        until = p.next + (until - p.next + 1) / 2;
        hold = true;
      }
      for (; p.next < until && n < capacity; ++p.next, ++n) {
        if (file_c)
          duckdb_vector_assign_string_element_len(file_c->vector, n,
                                                  file.data(), file.size());
        const int64_t e = p.order[p.next];
        if (e < 0) {  // a malformed line: its problem, nothing else
          const size_t k = static_cast<size_t>(-1 - e);
          if (lines) lines[n] = p.batch.problems[k].line;
          if (problem) problem->Text(n, p.text, p.problems[k].uri,
                                     p.problems[k].end);
          for (Column* c : {uri_c, client, time, method, status, bytes,
                            referer, agent})
            if (c) c->Null(n);
          continue;
        }
        const size_t i = static_cast<size_t>(e);
        const Pending::Row& u = p.rows[i];
        if (lines) lines[n] = p.batch.rows[i].line;
        if (uri_c) uri_c->Text(n, p.text, u.uri, u.end);
        if (problem) {
          if (p.row_problem[i] < 0) {
            problem->Null(n);
          } else {
            const Pending::Row& q = p.problems[p.row_problem[i]];
            problem->Text(n, p.text, q.uri, q.end);
          }
        }
        if (!logs) continue;
        const LogFieldsRow& r = p.batch.fields[i];
        const Pending::FieldsRow& t = p.fields[i];
        if (client) client->Text(n, p.text, t.client, t.method);
        if (time) {
          if (r.has_time) {
            time->Data<duckdb_timestamp>()[n].micros = r.time;
          } else {
            time->Null(n);
          }
        }
        if (method) {
          if (t.method == t.referer) {
            method->Null(n);
          } else {
            method->Text(n, p.text, t.method, t.referer);
          }
        }
        if (status) {
          if (r.status >= 0) {
            status->Data<int32_t>()[n] = r.status;
          } else {
            status->Null(n);
          }
        }
        if (bytes) {
          if (r.bytes >= 0) {
            bytes->Data<int64_t>()[n] = r.bytes;
          } else {
            bytes->Null(n);
          }
        }
        if (referer) {
          if (r.has_referer) {
            referer->Text(n, p.text, t.referer, t.user_agent);
          } else {
            referer->Null(n);
          }
        }
        if (agent) {
          if (r.has_user_agent) {
            agent->Text(n, p.text, t.user_agent, t.end);
          } else {
            agent->Null(n);
          }
        }
      }
      if (hold) break;
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
  duckdb_table_function_supports_projection_pushdown(f, true);
  const bool ok = duckdb_register_table_function(connection, f) == DuckDBSuccess;
  duckdb_destroy_table_function(&f);
  return ok;
}

}  // namespace duck
}  // namespace uriscan

// For a host that embeds DuckDB: call beside duckdb_interrupt() to end a
// read_uris that waits for input (see `interrupts` above).
extern "C" __attribute__((visibility("default"))) void
uriscan_duckdb_interrupt() {
  uriscan::duck::interrupts.fetch_add(1, std::memory_order_acq_rel);
}
