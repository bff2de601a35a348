// SPDX-License-Identifier: MIT
// uriscan-duckdb: a small SQL shell over libduckdb.so with the uriscan
// extension loaded, for trying the extension where no DuckDB shell is
// installed (Debian has none), and the host of its tests and benchmarks.
//
// usage: uriscan-duckdb [OPTIONS] [EXTENSION] [SQL...]
// EXTENSION (a file ending in .duckdb_extension) is loaded first; without
// one, the extension installed beside the shell is, unless --no-extension.
// Each SQL argument is run in order (it may hold several statements);
// then -f FILE's statements; with neither, those read from stdin (a
// prompt when stdin is a terminal). Lines of the input that start with
// '.' between statements are the shell's own commands (.help).
// Exit status 0, 1 after a failed statement (DuckDB's message on stderr;
// the statements after it are not run), 2 for a usage error.
#include <duckdb.h>
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

enum class Mode { kTable, kCsv, kTsv, kJson, kLine };

struct Settings {
  Mode mode = Mode::kTable;
  bool header = true;
  bool raw = false;    // tsv: values as they are, unescaped
  bool timer = false;  // the time of each statement, on stderr
};

constexpr char kUsage[] =
    "usage: uriscan-duckdb [OPTIONS] [EXTENSION] [SQL...]\n"
    "\n"
    "Runs SQL on an in-memory DuckDB (or --database=FILE) with the uriscan\n"
    "extension loaded: each SQL argument in order, then the statements of\n"
    "-f FILE, or with neither those of stdin.\n"
    "\n"
    "  EXTENSION              a .duckdb_extension file to load (default: the\n"
    "                         one installed beside this shell)\n"
    "  -c SQL                 run SQL (as an SQL argument)\n"
    "  -f FILE                run the statements of FILE\n"
    "  --database=FILE        a database file, opened or made\n"
    "  --mode=MODE            table (default), csv, tsv, json or line\n"
    "  --header, --no-header  column names first (default: on, but for tsv)\n"
    "  --raw                  tsv: values as they are (else PostgreSQL's text\n"
    "                         format: \\N for NULL, \\t \\n \\r \\\\ escaped)\n"
    "  --timer                each statement's time on stderr\n"
    "  --no-extension         load none (a LOAD in the SQL still works)\n"
    "  --interrupt-after=MS   interrupt the statement running after MS\n"
    "                         milliseconds, as Ctrl-C does (for tests)\n"
    "\n"
    "In the input, lines that start with '.' between statements:\n"
    "  .mode MODE, .headers on|off, .timer on|off, .help, .quit\n";

// The value of column k, row r, as text (NULL: nullptr).
std::string Cell(duckdb_result* result, idx_t k, idx_t r, bool* null) {
  *null = duckdb_value_is_null(result, k, r);
  if (*null) return {};
  char* text = duckdb_value_varchar(result, k, r);
  std::string s = text ? text : "";
  duckdb_free(text);
  return s;
}

void AppendTsv(const std::string& s, bool raw, std::string* out) {
  if (raw) {
    out->append(s);
    return;
  }
  for (const char c : s) {
    switch (c) {
      case '\\': out->append("\\\\"); break;
      case '\t': out->append("\\t"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      default: out->push_back(c);
    }
  }
}

void AppendCsv(const std::string& s, std::string* out) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (const char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

void AppendJsonString(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(ch);  // DuckDB's VARCHAR is UTF-8
    }
  }
  out->push_back('"');
}

bool IsNumber(duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER: case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_HUGEINT: case DUCKDB_TYPE_UHUGEINT:
    case DUCKDB_TYPE_FLOAT: case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_DECIMAL:
      return true;
    default:
      return false;
  }
}

// Characters, not bytes, for the table's widths (UTF-8).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

void Print(duckdb_result* result, const Settings& s) {
  const idx_t columns = duckdb_column_count(result);
  const idx_t rows = duckdb_row_count(result);
  std::vector<std::string> names;
  std::vector<duckdb_type> types;
  for (idx_t k = 0; k < columns; ++k) {
    names.push_back(duckdb_column_name(result, k));
    types.push_back(duckdb_column_type(result, k));
  }
  std::string out;
  bool null = false;
  auto flush = [&] {
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  if (s.mode == Mode::kTable) {
    // Every value first, for the widths; a long value is cut.
    constexpr size_t kMost = 60;
    std::vector<std::vector<std::string>> cells(rows);
    std::vector<size_t> width(columns);
    for (idx_t k = 0; k < columns; ++k)
      width[k] = s.header ? Width(names[k]) : 1;
    for (idx_t r = 0; r < rows; ++r) {
      for (idx_t k = 0; k < columns; ++k) {
        std::string v = Cell(result, k, r, &null);
        if (null) v = "NULL";
        for (char& c : v)
          if (c == '\n' || c == '\t' || c == '\r') c = ' ';
        if (Width(v) > kMost) {
          size_t bytes = 0, chars = 0;
          while (bytes < v.size() && chars < kMost - 1) {
            ++bytes;
            while (bytes < v.size() &&
                   (static_cast<unsigned char>(v[bytes]) & 0xC0) == 0x80)
              ++bytes;
            ++chars;
          }
          v = v.substr(0, bytes) + "\xE2\x80\xA6";  // ...
        }
        width[k] = std::max(width[k], Width(v));
        cells[r].push_back(std::move(v));
      }
    }
    std::string rule = "+";
    for (idx_t k = 0; k < columns; ++k)
      rule += std::string(width[k] + 2, '-') + "+";
    rule += "\n";
    auto line = [&](const std::vector<std::string>& values) {
      out += "|";
      for (idx_t k = 0; k < columns; ++k) {
        const std::string pad(width[k] - Width(values[k]), ' ');
        out += " ";
        out += IsNumber(types[k]) ? pad + values[k] : values[k] + pad;
        out += " |";
      }
      out += "\n";
    };
    out += rule;
    if (s.header) {
      line(names);
      out += rule;
    }
    for (idx_t r = 0; r < rows; ++r) line(cells[r]);
    if (rows > 0) out += rule;
    out += std::to_string(rows) + (rows == 1 ? " row\n" : " rows\n");
    flush();
    return;
  }
  if (s.mode == Mode::kJson) out += "[";
  if (s.header && (s.mode == Mode::kCsv || s.mode == Mode::kTsv)) {
    for (idx_t k = 0; k < columns; ++k) {
      if (k) out += s.mode == Mode::kCsv ? "," : "\t";
      if (s.mode == Mode::kCsv) AppendCsv(names[k], &out);
      else AppendTsv(names[k], s.raw, &out);
    }
    out += "\n";
  }
  for (idx_t r = 0; r < rows; ++r) {
    if (s.mode == Mode::kJson) out += r ? ",\n{" : "{";
    for (idx_t k = 0; k < columns; ++k) {
      const std::string v = Cell(result, k, r, &null);
      switch (s.mode) {
        case Mode::kCsv:
          if (k) out += ",";
          if (!null) AppendCsv(v, &out);
          break;
        case Mode::kTsv:
          if (k) out += "\t";
          if (null) out += "\\N";
          else AppendTsv(v, s.raw, &out);
          break;
        case Mode::kJson:
          if (k) out += ",";
          AppendJsonString(names[k], &out);
          out += ":";
          if (null) out += "null";
          else if (types[k] == DUCKDB_TYPE_BOOLEAN || IsNumber(types[k]))
            out += v;
          else AppendJsonString(v, &out);
          break;
        case Mode::kLine:
          out += names[k] + " = " + (null ? std::string("NULL") : v) + "\n";
          break;
        case Mode::kTable:
          break;
      }
    }
    if (s.mode == Mode::kJson) out += "}";
    else out += "\n";
    if (out.size() > (1u << 20)) flush();
  }
  if (s.mode == Mode::kJson) out += "]\n";
  flush();
}

bool ParseMode(const std::string& name, Mode* mode) {
  static const std::pair<const char*, Mode> kModes[] = {
      {"table", Mode::kTable}, {"csv", Mode::kCsv}, {"tsv", Mode::kTsv},
      {"json", Mode::kJson}, {"line", Mode::kLine}};
  for (const auto& [n, m] : kModes) {
    if (name == n) {
      *mode = m;
      return true;
    }
  }
  return false;
}

bool Nested(duckdb_result* result) {
  for (idx_t k = 0; k < duckdb_column_count(result); ++k) {
    switch (duckdb_column_type(result, k)) {
      case DUCKDB_TYPE_LIST: case DUCKDB_TYPE_STRUCT: case DUCKDB_TYPE_MAP:
      case DUCKDB_TYPE_ARRAY: case DUCKDB_TYPE_UNION:
        return true;
      default:
        break;
    }
  }
  return false;
}

class Shell {
 public:
  Shell(duckdb_connection c, Settings s) : c_(c), s_(s) {}
  void set_timer(bool on) { s_.timer = on; }

  // Runs every statement of `sql`; false after the first that fails.
  bool Run(const std::string& sql) {
    duckdb_extracted_statements extracted = nullptr;
    const idx_t n = duckdb_extract_statements(c_, sql.c_str(), &extracted);
    if (n == 0) {
      // The message belongs to `extracted`: copied before it is freed.
      const char* text = duckdb_extract_statements_error(extracted);
      const bool failed = text != nullptr;
      const std::string error = failed ? text : "";
      duckdb_destroy_extracted(&extracted);
      if (!failed) return true;  // nothing but space and comments
      std::fprintf(stderr, "uriscan-duckdb: %s\n", error.c_str());
      return false;
    }
    bool ok = true;
    for (idx_t i = 0; ok && i < n; ++i) {
      duckdb_prepared_statement prepared = nullptr;
      const auto start = std::chrono::steady_clock::now();
      if (duckdb_prepare_extracted_statement(c_, extracted, i, &prepared) ==
          DuckDBError) {
        std::fprintf(stderr, "uriscan-duckdb: %s\n",
                     duckdb_prepare_error(prepared));
        ok = false;
      } else {
        duckdb_result result;
        if (duckdb_execute_prepared(prepared, &result) == DuckDBError) {
          std::fprintf(stderr, "uriscan-duckdb: %s\n",
                       duckdb_result_error(&result));
          ok = false;
        } else if (duckdb_result_return_type(result) ==
                   DUCKDB_RESULT_TYPE_QUERY_RESULT) {
          if (!Nested(&result)) {
            Print(&result, s_);
          } else if (n == 1) {
            // The cell reader spells no nested value (a LIST, a STRUCT):
            // the statement again, every column cast to VARCHAR.
            std::string inner = sql;
            while (!inner.empty() &&
                   std::strchr(" \t\r\n;", inner.back()) != nullptr)
              inner.pop_back();
            duckdb_result cast;
            const std::string text =
                "SELECT COLUMNS(*)::VARCHAR FROM (" + inner + "\n)";
            if (duckdb_query(c_, text.c_str(), &cast) == DuckDBError) {
              std::fprintf(stderr, "uriscan-duckdb: %s\n",
                           duckdb_result_error(&cast));
              ok = false;
            } else {
              Print(&cast, s_);
            }
            duckdb_destroy_result(&cast);
          } else {
            std::fprintf(stderr,
                         "uriscan-duckdb: a result with LIST, STRUCT or MAP "
                         "columns is shown only for a statement given alone "
                         "(one a line, or one an argument)\n");
            ok = false;
          }
        }
        duckdb_destroy_result(&result);
      }
      duckdb_destroy_prepare(&prepared);
      if (s_.timer) {
        std::fprintf(stderr, "Run Time (s): real %.3f\n",
                     std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count());
      }
    }
    duckdb_destroy_extracted(&extracted);
    std::fflush(stdout);
    return ok;
  }

  // A line that starts with '.': the shell's own command. False to stop
  // (.quit, or an unknown command: status 1).
  bool Dot(const std::string& line, bool* quit) {
    std::istringstream words(line);
    std::string command, arg;
    words >> command >> arg;
    if (command == ".quit" || command == ".exit") {
      *quit = true;
      return true;
    }
    if (command == ".help") {
      std::fputs(kUsage, stdout);
      return true;
    }
    if (command == ".mode" && ParseMode(arg, &s_.mode)) return true;
    if ((command == ".headers" || command == ".header") &&
        (arg == "on" || arg == "off")) {
      s_.header = arg == "on";
      return true;
    }
    if (command == ".timer" && (arg == "on" || arg == "off")) {
      s_.timer = arg == "on";
      return true;
    }
    std::fprintf(stderr,
                 "uriscan-duckdb: unknown or incomplete command '%s' (.help "
                 "lists them)\n",
                 line.c_str());
    return false;
  }

  // The statements of `in`, a statement ending at a line that ends in
  // ';' (and the rest at the end), with dot commands between them.
  bool RunStream(std::istream& in, bool prompt) {
    std::string pending, line;
    bool quit = false;
    if (prompt) std::fputs("D ", stdout), std::fflush(stdout);
    while (!quit && std::getline(in, line)) {
      const size_t first = line.find_first_not_of(" \t\r");
      const bool blank = pending.find_first_not_of(" \t\r\n") ==
                         std::string::npos;
      if (blank && first != std::string::npos && line[first] == '.') {
        if (!Dot(line.substr(first), &quit)) return false;
      } else {
        pending += line + "\n";
        const size_t last = line.find_last_not_of(" \t\r");
        if (last != std::string::npos && line[last] == ';') {
          if (!Run(pending) && !prompt) return false;
          pending.clear();
        }
      }
      if (prompt && !quit) {
        std::fputs(pending.empty() ? "D " : "> ", stdout);
        std::fflush(stdout);
      }
    }
    if (prompt) std::fputs("\n", stdout);
    return quit || Run(pending);
  }

 private:
  duckdb_connection c_;
  Settings s_;
};

// The extension installed beside the shell: ../lib/uriscan/ (an install)
// or the directory of the shell itself (a build tree).
std::string DefaultExtension() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  self[n] = '\0';
  std::string dir(self);
  dir.resize(dir.rfind('/'));
  for (const std::string& candidate :
       {dir + "/../lib/uriscan/uriscan.duckdb_extension",
        dir + "/uriscan.duckdb_extension"}) {
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return {};
}

bool EndsWith(const std::string& s, const char* end) {
  const size_t n = std::strlen(end);
  return s.size() >= n && s.compare(s.size() - n, n, end) == 0;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "uriscan-duckdb: %s\ntry 'uriscan-duckdb --help'\n",
               message.c_str());
  return 2;
}

}  // namespace

// Ctrl-C (SIGINT) ends the statement running, not the shell: the signal
// handler writes a byte into a pipe, a thread of the shell's own reads it
// and interrupts the connection. duckdb_interrupt() alone cannot end a
// read_uris that waits for input with no row (DuckDB's C API shows a table
// function no interrupt): the extension's uriscan_duckdb_interrupt() is
// called beside it.
class Interrupter {
 public:
  Interrupter(duckdb_connection c, std::string extension)
      : c_(c), extension_(std::move(extension)) {
    if (::pipe(fds_) != 0) return;
    self_ = this;
    struct sigaction sa = {};
    sa.sa_handler = [](int) {
      const char byte = 1;
      if (self_) (void)!::write(self_->fds_[1], &byte, 1);
    };
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    thread_ = std::thread([this] {
      char byte;
      while (::read(fds_[0], &byte, 1) == 1 && byte == 1) Interrupt();
    });
  }
  ~Interrupter() {
    std::signal(SIGINT, SIG_DFL);
    self_ = nullptr;
    if (thread_.joinable()) {
      const char stop = 0;
      (void)!::write(fds_[1], &stop, 1);
      thread_.join();
    }
  }
  // After `ms` milliseconds, as if Ctrl-C were pressed (for tests).
  void After(int ms) {
    std::thread([this, ms] {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      const char byte = 1;
      (void)!::write(fds_[1], &byte, 1);
    }).detach();
  }

 private:
  void Interrupt() {
    if (!extension_.empty()) {
      if (void* h = ::dlopen(extension_.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        if (void* f = ::dlsym(h, "uriscan_duckdb_interrupt"))
          reinterpret_cast<void (*)()>(f)();
        ::dlclose(h);
      }
    }
    duckdb_interrupt(c_);
  }
  static Interrupter* self_;
  duckdb_connection c_;
  std::string extension_;
  int fds_[2] = {-1, -1};
  std::thread thread_;
};
Interrupter* Interrupter::self_ = nullptr;

int main(int argc, char** argv) {
  Settings s;
  int interrupt_after = -1;
  bool header_given = false, load = true;
  std::string extension, database, file;
  std::vector<std::string> sql;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) == 0) {
        *out = a.substr(prefix.size());
        return true;
      }
      if (a == name && i + 1 < argc) {
        *out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--header") {
      s.header = header_given = true;
    } else if (a == "--no-header") {
      s.header = false;
      header_given = true;
    } else if (a == "--raw") {
      s.raw = true;
    } else if (a == "--timer") {
      s.timer = true;
    } else if (a == "--no-extension") {
      load = false;
    } else if (value("--mode", &v)) {
      if (!ParseMode(v, &s.mode))
        return Usage("--mode takes table, csv, tsv, json or line, not '" + v +
                     "'");
    } else if (value("--interrupt-after", &v)) {
      interrupt_after = std::atoi(v.c_str());
    } else if (value("--database", &database)) {
    } else if (value("-f", &file)) {
    } else if (value("-c", &v)) {
      sql.push_back(v);
    } else if (a.size() > 1 && a[0] == '-') {
      return Usage("unknown option '" + a + "'");
    } else if (sql.empty() && extension.empty() &&
               EndsWith(a, ".duckdb_extension")) {
      extension = a;
    } else {
      sql.push_back(a);
    }
  }
  if (!header_given && s.mode == Mode::kTsv) s.header = false;
  if (load && extension.empty()) extension = DefaultExtension();

  duckdb_config config;
  duckdb_create_config(&config);
  duckdb_set_config(config, "allow_unsigned_extensions", "true");
  duckdb_database db;
  char* error = nullptr;
  if (duckdb_open_ext(database.empty() ? nullptr : database.c_str(), &db,
                      config, &error) == DuckDBError) {
    std::fprintf(stderr, "uriscan-duckdb: %s\n", error ? error : "open");
    duckdb_free(error);
    return 1;
  }
  duckdb_destroy_config(&config);
  duckdb_connection c;
  if (duckdb_connect(db, &c) == DuckDBError) return 1;
  Shell shell(c, s);
  Interrupter interrupter(c, load ? extension : std::string());
  if (interrupt_after >= 0) interrupter.After(interrupt_after);
  bool ok = true;
  if (load && !extension.empty()) {
    std::string quoted;
    for (const char ch : extension) quoted += ch == '\'' ? "''" : std::string(1, ch);
    shell.set_timer(false);  // the user's statements are timed, not this
    ok = shell.Run("LOAD '" + quoted + "'");
    shell.set_timer(s.timer);
  }
  for (size_t i = 0; ok && i < sql.size(); ++i) ok = shell.Run(sql[i]);
  if (ok && !file.empty()) {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "uriscan-duckdb: cannot read %s: %s\n",
                   file.c_str(), std::strerror(errno));
      ok = false;
    } else {
      ok = shell.RunStream(in, false);
    }
  }
  if (ok && sql.empty() && file.empty())
    ok = shell.RunStream(std::cin, isatty(0) && isatty(1));
  std::fflush(stdout);
  duckdb_disconnect(&c);
  duckdb_close(&db);
  return ok ? 0 : 1;
}
