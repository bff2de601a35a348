// SPDX-License-Identifier: MIT
// JSON Lines and TSV records, diagnostics.
#include "src/cli/output.h"

#include <charconv>

#include "kernels/utf8.h"
#include "uriscan/risk.h"

namespace uriscan {
namespace cli {
namespace {

void AppendNumber(uint64_t v, std::string* out) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

void AppendJsonField(const char* key, std::string_view value,
                     std::string* out) {
  out->append(",\"").append(key).append("\":");
  AppendJsonString(value, out);
}

void AppendTsvField(const std::optional<std::string_view>& v,
                    std::string* out) {
  out->push_back('\t');
  if (v) {
    out->append(*v);
  } else {
    out->append("\\N");
  }
}

}  // namespace

// A JSON string (RFC 8259) of s. JSON text is UTF-8: a byte that is not
// part of a well-formed UTF-8 sequence (a Latin-1 log line given to
// --lenient, say) becomes U+FFFD.
void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (const size_t n = Utf8SequenceAt(s, i)) {
      out->append(s.substr(i, n));
      i += n - 1;
    } else {
      out->append("\\ufffd");
    }
  }
  out->push_back('"');
}

void AppendHtmlText(std::string_view s, std::string* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out->append("&amp;"); continue;
      case '<': out->append("&lt;"); continue;
      case '>': out->append("&gt;"); continue;
      case '"': out->append("&quot;"); continue;
      case '\'': out->append("&#39;"); continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      out->append("\xEF\xBF\xBD");  // U+FFFD: no control byte in a page
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (const size_t n = Utf8SequenceAt(s, i)) {
      out->append(s.substr(i, n));
      i += n - 1;
    } else {
      out->append("\xEF\xBF\xBD");
    }
  }
}

void AppendPgText(std::string_view s, std::string* out) {
  size_t run = 0;  // bytes of s up to i that need no escape
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const char* escape = c == '\\' ? "\\\\"
                         : c == '\t' ? "\\t"
                         : c == '\n' ? "\\n"
                         : c == '\r' ? "\\r"
                                     : nullptr;
    if (!escape) continue;
    out->append(s.data() + run, i - run);
    out->append(escape);
    run = i + 1;
  }
  out->append(s.data() + run, s.size() - run);
}

bool Writer::Flush() {
  if (!buf_.empty() && !failed_) {
    if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size())
      Fail();
  }
  buf_.clear();
  if (!failed_ && std::fflush(out_) != 0) Fail();
  return !failed_;
}

bool Writer::WriteThrough(std::string_view text) {
  if (!Flush()) return false;
  // Flushed too: nothing of it may wait in stdio's buffer (a live pipe's
  // reader waits for it).
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size() ||
      std::fflush(out_) != 0)
    Fail();
  return !failed_;
}

void AppendJsonRecord(const UriReference& uri, std::string* out,
                      uint32_t risk_flags) {
  if (!uri.valid()) {
    out->append("{\"valid\":false,\"error\":\"")
        .append(ErrorKindName(uri.error().kind))
        .append("\",\"at\":");
    AppendNumber(uri.error().offset, out);
    out->push_back('}');
    return;
  }
  out->append("{\"valid\":true");
  if (auto v = uri.scheme()) AppendJsonField("scheme", *v, out);
  if (auto v = uri.userinfo()) AppendJsonField("userinfo", *v, out);
  if (auto v = uri.host()) {
    AppendJsonField("host", *v, out);
    AppendJsonField("host_type", HostKindName(uri.host_kind()), out);
  }
  if (auto v = uri.port()) AppendJsonField("port", *v, out);
  AppendJsonField("path", uri.path(), out);
  if (auto v = uri.query()) AppendJsonField("query", *v, out);
  if (auto v = uri.fragment()) AppendJsonField("fragment", *v, out);
  if (risk_flags != 0 && !(risk_flags & risks::kInvalid)) {
    const char* sep = ",\"risks\":[\"";
    for (int bit = 0; bit < risks::kCount; ++bit) {
      if (!(risk_flags & (1u << bit))) continue;
      out->append(sep).append(RiskFlagName(bit)).push_back('"');
      sep = ",\"";
    }
    out->push_back(']');
  }
  out->push_back('}');
}

void AppendJsonRepaired(std::string_view original, std::string* out) {
  out->pop_back();  // the record's '}'
  out->append(",\"repaired\":true,\"original\":");
  AppendJsonString(original, out);
  out->push_back('}');
}

void AppendAuditRecord(uint64_t line, uint32_t risk_flags, std::string* out) {
  AppendNumber(line, out);
  out->push_back('\t');
  if (risk_flags & risks::kInvalid) {
    out->append("invalid");
  } else {
    const char* sep = "";
    for (int bit = 0; bit < risks::kCount; ++bit) {
      if (!(risk_flags & (1u << bit))) continue;
      out->append(sep).append(RiskFlagName(bit));
      sep = ",";
    }
  }
  out->push_back('\n');
}

void AppendTsvHeader(std::string* out) {
  out->append(
      "line\tvalid\tscheme\tuserinfo\thost\tport\tpath\tquery\tfragment\t"
      "host_type\terror\n");
}

void AppendTsvRecord(uint64_t line, const UriReference& uri,
                     std::string* out) {
  AppendNumber(line, out);
  if (!uri.valid()) {
    out->append("\tfalse");
    for (int i = 0; i < 8; ++i) out->append("\t\\N");
    out->push_back('\t');
    out->append(ErrorKindName(uri.error().kind));
    out->push_back('\n');
    return;
  }
  out->append("\ttrue");
  AppendTsvField(uri.scheme(), out);
  AppendTsvField(uri.userinfo(), out);
  AppendTsvField(uri.host(), out);
  AppendTsvField(uri.port(), out);
  AppendTsvField(uri.path(), out);
  AppendTsvField(uri.query(), out);
  AppendTsvField(uri.fragment(), out);
  AppendTsvField(uri.host() ? std::optional<std::string_view>(
                                  HostKindName(uri.host_kind()))
                            : std::nullopt,
                 out);
  out->append("\t\\N\n");
}

void AppendDiagnostic(std::string_view file, uint64_t line, ScanError error,
                      std::string* out) {
  AppendDiagnostic(file, line, error.offset + uint64_t{1},
                   ErrorKindName(error.kind), ErrorKindMessage(error.kind),
                   out);
}

void AppendDiagnostic(std::string_view file, uint64_t line, uint64_t column,
                      std::string_view kind, std::string_view message,
                      std::string* out) {
  out->append(file).push_back(':');
  AppendNumber(line, out);
  out->push_back(':');
  AppendNumber(column, out);
  out->append(": error: ").append(kind).append(": ").append(message);
  out->push_back('\n');
}

}  // namespace cli
}  // namespace uriscan
