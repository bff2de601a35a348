// SPDX-License-Identifier: MIT
// Extract(): finds URI references in text, logs, tables and JSON Lines.
#include "src/ingest/extract.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "src/char_class.h"
#include "uriscan/lenient.h"
#include "uriscan/resolve.h"

namespace uriscan {
namespace ingest {
namespace {

constexpr std::string_view kLogFormat = kLogFormatKind;
// A reference wrapped in "<...>" may span at most this many line breaks.
constexpr int kMaxWrappedLines = 8;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}
// Punctuation that usually ends a sentence rather than a URI (Appendix C).
bool IsSentencePunct(char c) { return std::strchr(".,;:!?'\"", c) && c; }

// Where the references of one piece of input go.
struct Sink {
  const ExtractOptions& opt;
  uint64_t first_line;
  std::string* out;
  std::vector<ExtractProblem>* problems;
  std::vector<LogFields>* fields = nullptr;  // clf, combined: per reference
  const LogFields* line_fields = nullptr;    // the current line's
  LogLineVisitor* visitor = nullptr;         // clf, combined: each line
  ExtractCounts counts;

  void Emit(uint64_t line, std::string_view ref) {
    ++counts.references;
    if (fields) fields->push_back(*line_fields);
    if (opt.with_line) {
      out->append(std::to_string(first_line + line));
      out->push_back('\t');
    }
    if (opt.lenient) {
      RepairReference(ref, out);
    } else {
      out->append(ref);
    }
    out->push_back('\n');
  }
  void Problem(uint64_t line, uint64_t column, std::string_view message) {
    problems->push_back({line, column, kLogFormat, message});
  }
  void NoReference(NoTarget kind) {
    ++counts.no_target[static_cast<size_t>(kind)];
  }
  // A value taken from a field: a line break or other control character in
  // it would break the one-reference-per-line output.
  void EmitValue(uint64_t line, uint64_t column, std::string_view v) {
    if (v.empty()) return;
    for (char c : v) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        Problem(line, column, "the value holds a control character");
        return;
      }
    }
    Emit(line, v);
  }
};

// --- text (RFC 3986 Appendix C) ---------------------------------------

// Does `ref` look like a reference rather than a word in angle brackets or
// quotes ("<b>", "\"yes\"")? It must hold a delimiter a URI would.
bool LooksLikeReference(std::string_view ref) {
  return !ref.empty() && ref.find_first_of(":/.?#@") != std::string_view::npos;
}

// "<...>" or "<URL:...>" from text[i] == '<': the reference with whitespace
// removed, or false when the brackets hold no reference or are longer than
// max_bytes, "<" and ">" included (a line too long is no part of one).
bool TakeBracketed(std::string_view text, size_t i, size_t max_bytes,
                   std::string* ref, size_t* end) {
  size_t j = i + 1;
  if (text.size() - j >= 4 && text.compare(j, 4, "URL:") == 0) j += 4;
  ref->clear();
  int breaks = 0;
  for (; j < text.size(); ++j) {
    if (j - i >= max_bytes) return false;
    const char c = text[j];
    if (c == '>') break;
    if (c == '\n' && ++breaks > kMaxWrappedLines) return false;
    if (IsSpace(c)) continue;
    if (c == '<' || c == '"' || static_cast<unsigned char>(c) < 0x20)
      return false;
    ref->push_back(c);
  }
  if (j == text.size() || !LooksLikeReference(*ref)) return false;
  *end = j + 1;
  return true;
}

// A bare absolute URI starting at text[i] (a scheme's first letter, not
// inside a word), ending at whitespace, trailing sentence punctuation and an
// unbalanced ")" left out. `*end` is where scanning resumes.
bool TakeBare(std::string_view text, size_t i, std::string_view* ref,
              size_t* end) {
  size_t j = i;
  while (j < text.size() && chars::Is(text[j], chars::kSchemeChar)) ++j;
  if (j == text.size() || text[j] != ':' || j + 1 == text.size()) return false;
  const char first = text[j + 1];
  if (IsSpace(first) || IsSentencePunct(first) || first == ')') return false;
  size_t k = j + 1;
  while (k < text.size() && !IsSpace(text[k])) ++k;
  *end = k;
  std::string_view r = text.substr(i, k - i);
  // Counted once, so that a long run of ")" is trimmed in linear time.
  const auto opens = std::count(r.begin(), r.end(), '(');
  auto closes = std::count(r.begin(), r.end(), ')');
  for (;;) {
    const char last = r.back();
    if (IsSentencePunct(last)) {
      r.remove_suffix(1);
    } else if (last == ')' && opens < closes) {
      r.remove_suffix(1);
      --closes;
    } else {
      break;
    }
  }
  if (r.size() <= j + 1 - i) return false;  // nothing after the ':' is left
  *ref = r;
  return true;
}

void ExtractText(std::string_view text, Sink* sink) {
  uint64_t line = 0;
  size_t line_start = 0;  // for columns
  std::string bracketed;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    size_t end = 0;
    std::string_view ref;
    if (c == '\n') {
      ++line;
      line_start = ++i;
    } else if (c == '<' && TakeBracketed(text, i, sink->opt.max_record,
                                         &bracketed, &end)) {
      sink->Emit(line, bracketed);  // holds no control character
      const auto breaks = std::count(text.begin() + i, text.begin() + end, '\n');
      if (breaks > 0) line_start = text.rfind('\n', end) + 1;
      line += breaks;
      i = end;
    } else if (c == '"') {
      const size_t close = text.find_first_of("\"\n", i + 1);
      const std::string_view inner =
          close == std::string_view::npos ? std::string_view()
                                          : text.substr(i + 1, close - i - 1);
      if (close != std::string_view::npos && text[close] == '"' &&
          LooksLikeReference(inner) &&
          std::none_of(inner.begin(), inner.end(), IsSpace)) {
        sink->EmitValue(line, i + 2 - line_start, inner);
        i = close + 1;
      } else {
        ++i;
      }
    } else if (chars::Is(c, chars::kAlpha) &&
               (i == 0 || !chars::Is(text[i - 1], chars::kSchemeChar)) &&
               TakeBare(text, i, &ref, &end)) {
      // As the field formats: a control byte is a diagnostic, not output.
      sink->EmitValue(line, i + 1 - line_start, ref);
      i = end;
    } else {
      ++i;
    }
  }
}

// --- tsv, csv (RFC 4180) ----------------------------------------------

struct Field {
  size_t begin;  // offset of its first byte in the text
  std::string value;
};

// Reads the record at text[pos...] into *fields (when not null). Returns
// the offset after its line break, or npos when a quoted field is still
// open at the end of `text`. Sets *malformed (with its offset) at a quote
// where RFC 4180 allows none.
size_t ScanRecord(std::string_view text, size_t pos, char delim,
                  std::vector<Field>* fields, size_t* malformed) {
  bool field_start = true, in_quotes = false;
  if (fields) fields->clear();
  Field* f = nullptr;
  auto start_field = [&](size_t at) {
    if (!fields) return;
    fields->push_back({at, {}});
    f = &fields->back();
  };
  start_field(pos);
  for (size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          ++i;
        } else {
          in_quotes = false;
          continue;
        }
      }
      if (f) f->value.push_back(c);
      continue;
    }
    if (c == '\n') {
      if (f && !f->value.empty() && f->value.back() == '\r')
        f->value.pop_back();
      return i + 1;
    }
    if (c == '"' && field_start) {
      in_quotes = true;
      field_start = false;
      continue;
    }
    if (c == '"' && malformed && *malformed == std::string::npos)
      *malformed = i;
    field_start = c == delim;
    if (field_start) {
      start_field(i + 1);
    } else if (f) {
      f->value.push_back(c);
    }
  }
  if (in_quotes) return std::string_view::npos;
  if (f && !f->value.empty() && f->value.back() == '\r') f->value.pop_back();
  return text.size();
}

char Delimiter(const ExtractOptions& opt) {
  return opt.from == LogFormat::kCsv ? ',' : '\t';
}

void ExtractTable(std::string_view text, Sink* sink) {
  const char delim = Delimiter(sink->opt);
  std::vector<Field> fields;
  uint64_t line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t malformed = std::string::npos;
    size_t end = ScanRecord(text, pos, delim, &fields, &malformed);
    const uint64_t breaks =
        std::count(text.begin() + pos,
                   text.begin() + (end == std::string_view::npos
                                       ? text.size() : end), '\n');
    auto column_of = [&](size_t at) {
      const size_t nl = text.rfind('\n', at == 0 ? 0 : at - 1);
      return at - (nl == std::string_view::npos || nl >= at ? 0 : nl + 1) + 1;
    };
    const size_t record_end = end == std::string_view::npos ? text.size() : end;
    size_t length = record_end - pos;
    if (length > 0 && text[record_end - 1] == '\n') --length;
    if (length > 0 && text[pos + length - 1] == '\r') --length;
    if (length > sink->opt.max_record) {
      // As a record too long to read whole is (cmd_extract.cc): whatever
      // the chunk it falls in, the same diagnostic.
      sink->Problem(line, 1, kOverlongRecord);
      end = record_end;
    } else if (end == std::string_view::npos) {
      sink->Problem(line, 1, "a quoted field is not closed");
      end = text.size();
    } else if (malformed != std::string::npos) {
      sink->Problem(line + std::count(text.begin() + pos,
                                      text.begin() + malformed, '\n'),
                    column_of(malformed),
                    "a quote inside an unquoted field (RFC 4180)");
    } else if (fields.size() == 1 && fields[0].value.empty()) {
      // an empty line: no record
    } else if (sink->opt.column >= fields.size()) {
      sink->Problem(line, 1, "the record has too few fields");
    } else {
      const Field& f = fields[sink->opt.column];
      sink->EmitValue(line, column_of(f.begin), f.value);
    }
    line += breaks;
    pos = end;
  }
}

// --- jsonl ------------------------------------------------------------

// A minimal JSON (RFC 8259) reader over one line: enough to find a key of
// the top-level object and decode its string value.
class JsonLine {
 public:
  explicit JsonLine(std::string_view s) : s_(s) {}
  size_t pos() const { return i_; }
  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' ||
                              s_[i_] == '\r' || s_[i_] == '\n'))
      ++i_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return i_ < s_.size() && s_[i_] == c;
  }
  // A string at i_ (after its opening quote is checked), escapes decoded.
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return false;
      const char e = s_[i_++];
      const char* simple = std::strchr("\"\\/bfnrt", e);
      if (simple && e) {
        out->push_back("\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
      } else if (e == 'u') {
        uint32_t cp = 0;
        if (!Hex4(&cp)) return false;
        if (cp >= 0xd800 && cp < 0xdc00) {  // a surrogate pair
          uint32_t low = 0;
          if (i_ + 1 >= s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u')
            return false;
          i_ += 2;
          if (!Hex4(&low) || low < 0xdc00 || low >= 0xe000) return false;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          return false;
        }
        AppendUtf8(cp, out);
      } else {
        return false;
      }
    }
    return false;
  }
  // Any value, skipped. Iterative, so that no input can exhaust the stack:
  // `open` holds the closing bracket of each container still open.
  bool Skip() {
    std::string open;
    for (;;) {
      SkipSpace();
      if (i_ >= s_.size()) return false;
      const char c = s_[i_];
      if (c == '{' || c == '[') {
        if (open.size() == kMaxDepth) {
          too_deep_ = true;
          return false;
        }
        ++i_;
        open.push_back(c == '{' ? '}' : ']');
        if (Eat(open.back())) {
          open.pop_back();
        } else if (open.back() == '}' && !MemberName()) {
          return false;
        } else {
          continue;  // the container's first value
        }
      } else if (!Scalar()) {
        return false;
      }
      // A value ended: the next member, or the end of its containers.
      for (;;) {
        if (open.empty()) return true;
        if (Eat(',')) {
          if (open.back() == '}' && !MemberName()) return false;
          break;
        }
        if (!Eat(open.back())) return false;
        open.pop_back();
      }
    }
  }
  // True when Skip() failed on a value nested deeper than kMaxDepth.
  bool too_deep() const { return too_deep_; }
  static constexpr size_t kMaxDepth = 1000;

 private:
  bool MemberName() {
    std::string key;
    return String(&key) && Eat(':');
  }
  // A string, number, true, false or null.
  bool Scalar() {
    if (s_[i_] == '"') {
      std::string ignored;
      return String(&ignored);
    }
    const size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) ||
                              (s_[i_] && std::strchr("+-.", s_[i_]))))
      ++i_;
    return i_ > start;
  }
  bool Hex4(uint32_t* v) {
    if (s_.size() - i_ < 4) return false;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      const int d = chars::Is(h, chars::kDigit) ? h - '0'
                  : ((h | 0x20) >= 'a' && (h | 0x20) <= 'f') ? (h | 0x20) - 'a' + 10
                                                             : -1;
      if (d < 0) return false;
      *v = *v * 16 + static_cast<uint32_t>(d);
    }
    return true;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  bool too_deep_ = false;
};

// The first value of --field in a JSON object.
struct JsonField {
  bool found = false, is_string = false;
  uint64_t column = 0;  // where the value starts, from 1
  std::string value;    // decoded, when it is a string
};

// Reads the rest of an object (its '{' eaten) and finds `path` in it: a
// key equal to the whole path, else a key equal to the path's part before
// a '.' whose value is an object that holds the rest ("a.b" reaches
// {"a":{"b":...}}). False when the text is not a JSON object.
bool FindJsonField(JsonLine* j, std::string_view path, JsonField* f) {
  if (j->Eat('}')) return true;
  std::string key;
  do {
    if (!j->String(&key) || !j->Eat(':')) return false;
    const bool prefix = path.size() > key.size() &&
                        path[key.size()] == '.' &&
                        path.compare(0, key.size(), key) == 0;
    if (!f->found && key == path) {
      f->found = true;
      j->SkipSpace();
      f->column = j->pos() + 1;
      f->is_string = j->Peek('"');
      if (f->is_string ? !j->String(&f->value) : !j->Skip()) return false;
    } else if (!f->found && prefix && j->Peek('{')) {
      j->Eat('{');
      if (!FindJsonField(j, path.substr(key.size() + 1), f)) return false;
    } else if (!j->Skip()) {
      return false;
    }
  } while (j->Eat(','));
  return j->Eat('}');
}

void ExtractJsonLine(std::string_view l, uint64_t line, Sink* sink) {
  JsonLine j(l);
  j.SkipSpace();
  if (j.pos() == l.size()) return;  // a blank line holds no record
  auto bad = [&] {
    sink->Problem(line, j.pos() + 1,
                  j.too_deep() ? "the JSON value is nested more than 1000 deep"
                               : "not a JSON object");
  };
  if (!j.Eat('{')) return bad();
  JsonField f;
  if (!FindJsonField(&j, sink->opt.field_name, &f)) return bad();
  std::string& value = f.value;
  const bool found = f.found, is_string = f.is_string;
  const uint64_t column = f.column;
  j.SkipSpace();
  if (j.pos() != l.size()) return bad();
  // The value only once the whole line is known to be a JSON object.
  if (is_string) {
    sink->EmitValue(line, column, value);
  } else if (found && l.compare(column - 1, 4, "null") != 0) {
    sink->Problem(line, column, "the value is not a string");
  }
}

// --- clf, combined ----------------------------------------------------

// A quoted field of a server log from l[*i] == '"', as written: it ends at
// a '"' that no backslash escapes.
bool QuotedLogField(std::string_view l, size_t* i, std::string_view* v) {
  if (*i >= l.size() || l[*i] != '"') return false;
  size_t j = *i + 1;
  while (j < l.size() && l[j] != '"') j += l[j] == '\\' ? 2 : 1;
  if (j >= l.size()) return false;
  *v = l.substr(*i + 1, j - *i - 1);
  *i = j + 1;
  return true;
}

// The escapes web servers write in quoted log fields: Apache's \" and \\,
// \xhh for other bytes and C-style \b \n \r \t \v for whitespace (the
// mod_log_config documentation), nginx's \xHH. The byte that raw[i...]
// stands for, and how many bytes of `raw` that takes. A backslash that
// starts no escape is a byte as written.
size_t LogFieldByte(std::string_view raw, size_t i, char* byte) {
  *byte = raw[i];
  if (raw[i] != '\\' || i + 1 == raw.size()) return 1;
  const char e = raw[i + 1];
  if (e == '"' || e == '\\') {
    *byte = e;
    return 2;
  }
  static constexpr char kLetters[] = "bnrtv", kControls[] = "\b\n\r\t\v";
  if (const char* c = std::strchr(kLetters, e); c && e) {
    *byte = kControls[c - kLetters];
    return 2;
  }
  if (e == 'x' && i + 3 < raw.size() && chars::Is(raw[i + 2], chars::kHexDig) &&
      chars::Is(raw[i + 3], chars::kHexDig)) {
    *byte = static_cast<char>(chars::HexValue(raw[i + 2]) * 16 +
                              chars::HexValue(raw[i + 3]));
    return 4;
  }
  return 1;
}

// A log field with its escapes undone: `raw` itself when it has none, else
// *scratch.
std::string_view Unescaped(std::string_view raw, std::string* scratch) {
  if (raw.find('\\') == std::string_view::npos) return raw;
  scratch->clear();
  char byte = 0;
  for (size_t i = 0; i < raw.size(); scratch->push_back(byte))
    i += LogFieldByte(raw, i, &byte);
  return *scratch;
}

// Where byte `at` of Unescaped(raw) was written in `raw`.
size_t EscapedOffset(std::string_view raw, size_t at) {
  size_t i = 0;
  char byte = 0;
  for (; at > 0 && i < raw.size(); --at) i += LogFieldByte(raw, i, &byte);
  return i;
}

// A method is a token (RFC 9110 sec. 5.6.2, 9.1).
bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return chars::Is(c, chars::kAlpha | chars::kDigit) ||
           (c && std::strchr("!#$%&'*+-.^_`|~", c));
  });
}

// A decimal number of at most 18 digits, or -1.
int64_t LogNumber(std::string_view s) {
  if (s.empty() || s.size() > 18) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// The fields of a log line that ExtractLogLine() split (agent null when
// it did not parse, referer null when there is none).
void TakeLogFields(std::string_view l, std::string_view date,
                   std::string_view request, std::string_view status,
                   std::string_view bytes, const std::string_view* referer,
                   const std::string_view* agent, LogFields* f) {
  thread_local std::string scratch;
  f->client.assign(l.substr(0, l.find(' ')));
  f->has_time = ParseLogTime(date, &f->time);
  const size_t sp = request.find(' ');
  f->method.clear();
  if (request != "-" && sp != std::string_view::npos) {
    const std::string_view method = Unescaped(request.substr(0, sp), &scratch);
    if (IsToken(method)) f->method.assign(method);
  }
  const int64_t s = LogNumber(status);
  f->status = s >= 0 && s <= 999 ? static_cast<int32_t>(s) : -1;
  f->bytes = LogNumber(bytes);
  f->has_referer = referer && *referer != "-";
  f->referer.assign(f->has_referer ? Unescaped(*referer, &scratch) : "");
  f->has_user_agent = agent && *agent != "-";
  f->user_agent.assign(f->has_user_agent ? Unescaped(*agent, &scratch) : "");
}

void ExtractRequestTarget(std::string_view request, size_t request_at,
                          uint64_t line, Sink* sink);

void ExtractLogLine(std::string_view l, uint64_t line, Sink* sink) {
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (l.empty()) return;
  const bool combined = sink->opt.from == LogFormat::kCombined;
  // host ident authuser [date] "request" status bytes ["referer" "agent"]
  size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    const size_t sp = l.find(' ', i);
    if (sp == std::string_view::npos || sp == i)
      return sink->Problem(line, i + 1, "expected host, ident and user");
    i = sp + 1;
  }
  if (i >= l.size() || l[i] != '[')
    return sink->Problem(line, i + 1, "expected [date]");
  const size_t date_at = i + 1;
  const size_t close = l.find(']', i);
  if (close == std::string_view::npos || close + 1 >= l.size() ||
      l[close + 1] != ' ')
    return sink->Problem(line, i + 1, "expected [date]");
  i = close + 2;
  const size_t request_at = i + 2;  // its first byte's column
  std::string_view request;
  if (!QuotedLogField(l, &i, &request))
    return sink->Problem(line, i + 1, "expected a quoted request line");
  // status and bytes
  std::string_view status_and_bytes[2];
  for (int k = 0; k < 2; ++k) {
    if (i >= l.size() || l[i] != ' ')
      return sink->Problem(line, i + 1, "expected status and size");
    const size_t next = std::min(l.find(' ', i + 1), l.size());
    if (next == i + 1)
      return sink->Problem(line, i + 1, "expected status and size");
    status_and_bytes[k] = l.substr(i + 1, next - i - 1);
    i = next;
  }
  const std::string_view status = status_and_bytes[0];
  const std::string_view bytes = status_and_bytes[1];
  // Combined's referer and user agent: a field that does not parse (a
  // truncated user agent) is diagnosed, and what parsed before it is kept.
  std::string_view referer;
  size_t referer_at = 0, bad_at = 0;
  const char* bad = nullptr;
  bool referer_read = false;
  std::string_view agent;
  if (combined) {
    referer_at = i + 3;
    if (i >= l.size() || l[i] != ' ' || !QuotedLogField(l, &++i, &referer)) {
      bad = "expected a quoted referer";
    } else {
      referer_read = true;
      if (i >= l.size() || l[i] != ' ' || !QuotedLogField(l, &++i, &agent))
        bad = "expected a quoted user agent";
    }
    bad_at = i + 1;
  }
  thread_local LogFields f;
  if (sink->fields || sink->visitor) {
    TakeLogFields(l, l.substr(date_at, close - date_at), request, status,
                  bytes, referer_read ? &referer : nullptr,
                  combined && !bad ? &agent : nullptr, &f);
    sink->line_fields = &f;
  }
  const uint64_t before = sink->counts.references;
  if (sink->opt.referer) {
    thread_local std::string scratch;
    if (referer_read && referer != "-")
      sink->EmitValue(line, referer_at, Unescaped(referer, &scratch));
  } else {
    ExtractRequestTarget(request, request_at, line, sink);
  }
  if (sink->visitor)
    sink->visitor->Line(line, f, sink->counts.references - before);
  if (bad) sink->Problem(line, bad_at, bad);
}

// The request line's target as a reference (resolved against --base),
// `request_at` the column of its first byte.
void ExtractRequestTarget(std::string_view request, size_t request_at,
                          uint64_t line, Sink* sink) {
  thread_local std::string scratch, method_scratch;
  // request-line = method SP request-target SP HTTP-version (RFC 9112 3),
  // split where the log holds a space, each part then unescaped.
  if (request.empty() || request == "-")
    return sink->NoReference(NoTarget::kNoRequest);
  const size_t sp1 = request.find(' ');
  const std::string_view method =
      Unescaped(request.substr(0, sp1), &method_scratch);
  if (sp1 == std::string_view::npos || !IsToken(method))
    return sink->NoReference(NoTarget::kNotHttp);
  const size_t sp2 = request.find(' ', sp1 + 1);
  if (sp2 == sp1 + 1 || (sp2 != std::string_view::npos &&
                         request.compare(sp2 + 1, 5, "HTTP/") != 0))
    return sink->Problem(line, request_at,
                         "the request line is not METHOD TARGET HTTP/x.y");
  const size_t target_at = request_at + sp1 + 1;  // its column
  const std::string_view written = request.substr(
      sp1 + 1,
      (sp2 == std::string_view::npos ? request.size() : sp2) - sp1 - 1);
  std::string_view target = Unescaped(written, &scratch);
  if (target == "*") return sink->NoReference(NoTarget::kAsteriskForm);
  // CONNECT's authority-form, host:port (RFC 9112 sec. 3.2.3), is an
  // authority: as a reference, "//host:port".
  thread_local std::string network_path;
  size_t prefix = 0;  // bytes before the target as written
  if (method == "CONNECT" &&
      target.find_first_of("/?#") == std::string_view::npos) {
    network_path.assign("//").append(target);
    target = network_path;
    prefix = 2;
  } else if (target.size() >= 2 && target[0] == '/' && target[1] == '/') {
    // Origin-form, "absolute-path [ ? query ]" (RFC 9112 sec. 3.2.1): a
    // path, never an authority, however many '/' it starts with. As a
    // reference it is written "/." first (RFC 3986 sec. 3.3: no path
    // without an authority starts with "//"), which reads back as the
    // same path and resolves against --base to it: GET //favicon.ico is
    // BASE-ORIGIN//favicon.ico, not the host favicon.ico.
    network_path.assign("/.").append(target);
    target = network_path;
    prefix = 2;
  }
  if (!sink->opt.base) return sink->EmitValue(line, target_at, target);
  // --lenient: the repaired target is what is resolved (its fault, if one
  // is left, is then reported at the target's start).
  thread_local std::string repaired;
  repaired.clear();
  const bool was_repaired =
      sink->opt.lenient && RepairReference(target, &repaired);
  if (was_repaired) target = repaired;
  const UriReference ref = ParseUriReference(target);
  if (!ref.valid()) {
    const size_t at =
        was_repaired ? 0
                     : std::max<size_t>(ref.error().offset, prefix) - prefix;
    sink->problems->push_back({line, target_at + EscapedOffset(written, at),
                               ErrorKindName(ref.error().kind),
                               ErrorKindMessage(ref.error().kind)});
    return;
  }
  thread_local std::string resolved;
  resolved.clear();
  if (Resolve(*sink->opt.base, ref, ResolveOptions{}, &resolved) ==
      ResolveStatus::kOk)
    sink->Emit(line, resolved);
}

template <typename PerLine>
void ForEachLine(std::string_view text, PerLine per_line) {
  uint64_t line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    per_line(text.substr(pos, nl - pos), line);
    if (nl < text.size()) ++line;
    pos = nl + 1;
  }
}

// `text` (whole lines) when no "<" in it may open a reference that runs
// past its end, else the start of the line of the last "<": only it can,
// as any earlier one is closed by a ">" before it, or spoiled by it. A "<"
// followed by max_bytes or more opens none (TakeBracketed()).
size_t OpenBracketLine(std::string_view text, size_t max_bytes) {
  const size_t open = text.rfind('<');
  if (open == std::string_view::npos ||
      text.find('>', open) != std::string_view::npos ||
      text.size() - open >= max_bytes)
    return text.size();
  int breaks = 0;
  for (size_t j = open + 1; j < text.size(); ++j) {
    const char c = text[j];
    if (c == '\n' && ++breaks > kMaxWrappedLines) return text.size();
    if (c == '"' || (static_cast<unsigned char>(c) < 0x20 && !IsSpace(c)))
      return text.size();
  }
  const size_t line_start = text.rfind('\n', open);
  return line_start == std::string_view::npos ? 0 : line_start + 1;
}

}  // namespace

bool ParseLogFormat(std::string_view name, LogFormat* format) {
  static constexpr std::pair<const char*, LogFormat> kNames[] = {
      {"text", LogFormat::kText}, {"clf", LogFormat::kClf},
      {"combined", LogFormat::kCombined}, {"tsv", LogFormat::kTsv},
      {"csv", LogFormat::kCsv}, {"jsonl", LogFormat::kJsonl}};
  for (const auto& [n, f] : kNames) {
    if (name == n) {
      *format = f;
      return true;
    }
  }
  return false;
}

bool ParseLogTime(std::string_view s, int64_t* micros) {
  // dd/Mon/yyyy:hh:mm:ss +hhmm
  if (s.size() != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' ||
      s[14] != ':' || s[17] != ':' || s[20] != ' ' ||
      (s[21] != '+' && s[21] != '-'))
    return false;
  const auto num = [&](size_t at, size_t n, int64_t* v) {
    *v = LogNumber(s.substr(at, n));
    return *v >= 0;
  };
  static constexpr char kMonths[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  int64_t day, year, hour, minute, second, zone;
  const std::string_view month = s.substr(3, 3);
  const size_t m = std::string_view(kMonths).find(month);
  if (m == std::string_view::npos || m % 3 != 0 || !num(0, 2, &day) ||
      !num(7, 4, &year) || !num(12, 2, &hour) || !num(15, 2, &minute) ||
      !num(18, 2, &second) || !num(22, 4, &zone))
    return false;
  const int64_t mon = static_cast<int64_t>(m / 3) + 1;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day < 1 || day > kDays[mon - 1] || (mon == 2 && day == 29 && !leap) ||
      hour > 23 || minute > 59 || second > 60 || zone % 100 > 59)
    return false;
  // Days since 1970-01-01 of a proleptic Gregorian date (the era method:
  // 400-year eras of 146097 days, years counted from March).
  const int64_t y = year - (mon <= 2);
  const int64_t era = y / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = era * 146097 + doe - 719468;
  int64_t offset = (zone / 100) * 3600 + (zone % 100) * 60;
  if (s[21] == '-') offset = -offset;
  const int64_t seconds =
      days * 86400 + hour * 3600 + minute * 60 + second - offset;
  *micros = seconds * 1000000;
  return true;
}

const char* NoTargetName(NoTarget kind) {
  static constexpr const char* kNames[kNoTargetKinds] = {
      "no-request", "not-http", "asterisk-form"};
  return kNames[static_cast<size_t>(kind)];
}

ExtractCounts Extract(std::string_view text, const ExtractOptions& opt,
                      uint64_t first_line, std::string* out,
                      std::vector<ExtractProblem>* problems,
                      std::vector<LogFields>* fields,
                      LogLineVisitor* visitor) {
  Sink sink{opt, first_line, out, problems, fields, nullptr, visitor, {}};
  switch (opt.from) {
    case LogFormat::kText:
      ExtractText(text, &sink);
      break;
    case LogFormat::kTsv:
    case LogFormat::kCsv:
      ExtractTable(text, &sink);
      break;
    case LogFormat::kJsonl:
      ForEachLine(text, [&](std::string_view l, uint64_t n) {
        ExtractJsonLine(l, n, &sink);
      });
      break;
    case LogFormat::kClf:
    case LogFormat::kCombined:
      ForEachLine(text, [&](std::string_view l, uint64_t n) {
        ExtractLogLine(l, n, &sink);
      });
      break;
  }
  return sink.counts;
}

std::string_view WithoutLongLines(std::string_view text, size_t max_line,
                                  std::string* kept,
                                  std::vector<uint64_t>* long_lines,
                                  std::string_view stand_in) {
  long_lines->clear();
  if (text.size() <= max_line) return text;  // no line can be too long
  kept->clear();
  uint64_t line = 0;
  for (size_t pos = 0; pos < text.size(); ++line) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    const bool cr = nl > pos && text[nl - 1] == '\r';
    if (nl - pos - cr > max_line) {
      long_lines->push_back(line);
      kept->append(stand_in);
    } else {
      kept->append(text, pos, nl - pos);
    }
    if (nl < text.size()) kept->push_back('\n');
    pos = nl + 1;
  }
  return *kept;
}

std::string_view WithoutLongRecords(std::string_view text, size_t max_line,
                                    const ExtractOptions& opt,
                                    std::string* kept,
                                    std::vector<uint64_t>* long_lines,
                                    std::vector<uint64_t>* long_records) {
  long_records->clear();
  const std::string_view lines =
      WithoutLongLines(text, max_line, kept, long_lines);
  if (long_lines->empty()) return lines;
  // Rare: a line too long. Record by record, on the text as it was.
  std::vector<uint64_t> too_long;
  too_long.swap(*long_lines);
  std::string out;
  uint64_t line = 0;
  size_t next = 0;  // the next entry of too_long
  for (size_t pos = 0; pos < text.size();) {
    size_t end = ScanRecord(text, pos, Delimiter(opt), nullptr, nullptr);
    if (end == std::string_view::npos) end = text.size();  // left open
    const std::string_view record = text.substr(pos, end - pos);
    const uint64_t breaks = std::count(record.begin(), record.end(), '\n');
    const uint64_t last = line + breaks - (record.back() == '\n');
    if (next < too_long.size() && too_long[next] <= last) {
      (last == line ? long_lines : long_records)->push_back(line);
      out.append(breaks, '\n');
      while (next < too_long.size() && too_long[next] <= last) ++next;
    } else {
      out.append(record);
    }
    line += breaks;
    pos = end;
  }
  kept->swap(out);
  return *kept;
}

size_t RecordsEnd(std::string_view text, const ExtractOptions& opt,
                  bool at_end) {
  if (at_end) return text.size();
  if (opt.from == LogFormat::kTsv || opt.from == LogFormat::kCsv) {
    // Only a quoted field holds a line break: the lines before the first
    // '"' are whole records (the text is whole lines), so the walk starts
    // at the line of that quote, and a chunk without one is taken at once.
    const size_t quote = text.find('"');
    if (quote == std::string_view::npos) return text.size();
    const size_t line = text.rfind('\n', quote);
    size_t pos = line == std::string_view::npos ? 0 : line + 1;
    for (;;) {
      const size_t end = ScanRecord(text, pos, Delimiter(opt), nullptr, nullptr);
      if (end == std::string_view::npos) return pos;
      if (end == text.size()) return end;
      pos = end;
    }
  }
  if (opt.from != LogFormat::kText) return text.size();
  // Cut before the line of a "<" that may still be open; the text before
  // that line may hold another (closed only by a ">" after the cut): cut
  // again until none is. Each pass reads only bytes after its "<".
  for (size_t end = text.size();;) {
    const size_t cut = OpenBracketLine(text.substr(0, end), opt.max_record);
    if (cut == end || cut == 0) return cut;
    end = cut;
  }
}

RecordEnd::RecordEnd(const ExtractOptions& opt) : delim_(Delimiter(opt)) {}

size_t RecordEnd::Feed(std::string_view piece) {
  for (size_t i = 0; i < piece.size(); ++i) {
    const char c = piece[i];
    if (quote_seen_) {  // a '"' inside quotes: "" or the closing one
      quote_seen_ = false;
      if (c == '"') continue;
      in_quotes_ = false;
    }
    if (in_quotes_) {
      quote_seen_ = c == '"';
      continue;
    }
    if (c == '\n') return i + 1;
    in_quotes_ = c == '"' && field_start_;
    field_start_ = c == delim_;
  }
  return std::string_view::npos;
}

bool FindColumn(std::string_view text, const ExtractOptions& opt,
                size_t* column, size_t* header_end) {
  std::vector<Field> fields;
  *header_end = ScanRecord(text, 0, Delimiter(opt), &fields, nullptr);
  if (*header_end == std::string_view::npos) return false;
  for (size_t k = 0; k < fields.size(); ++k) {
    if (fields[k].value == opt.field_name) {
      *column = k;
      return true;
    }
  }
  return false;
}

}  // namespace ingest
}  // namespace uriscan
