// SPDX-License-Identifier: MIT
// Records written a run of rows at a time from the scan's columns.
#include "src/cli/records.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "uriscan/risk.h"

namespace uriscan {
namespace cli {
namespace {

// Room per record beside its reference's own bytes: a line number (24),
// the TSV record's tabs, \N's, "false" and a host type or error kind name
// (under 100), or the JSON record's keys and quotes (under 120).
constexpr size_t kRecordRoom = 160;

// The most bytes the names of every risk flag take in a record, with their
// quotes and separators: the room a "risks" array may need.
size_t RiskNamesRoom() {
  static const size_t room = [] {
    size_t n = 16;
    for (int bit = 0; bit < risks::kCount; ++bit)
      n += std::strlen(RiskFlagName(bit)) + 4;
    return n;
  }();
  return room;
}

// A row's own bytes.
inline size_t RowBytes(const ComponentSpans& s, size_t i) {
  return s.uri_end[i] - s.uri_begin[i];
}

// A TSV field and the TAB after it: the value, or \N when undefined.
inline void TsvField(RecordCursor* out, std::optional<std::string_view> v) {
  if (v) {
    out->Put(v->data(), v->size());
  } else {
    out->Lit("\\N");
  }
  out->Char('\t');
}

// A JSON key (`key` is ,"name":" as a literal) and its string value, when
// the component is defined; nothing when it is not.
template <size_t N>
inline void JsonField(RecordCursor* out, const char (&key)[N],
                      std::optional<std::string_view> v) {
  if (!v) return;
  out->Lit(key);
  out->Put(v->data(), v->size());
  out->Char('"');
}

}  // namespace

void RecordCursor::Number(uint64_t v) {
  p_ = std::to_chars(p_, p_ + 24, v).ptr;
}

LineCounter::LineCounter(uint64_t first) {
  std::memset(digits_, '0', sizeof(digits_));
  size_ = static_cast<size_t>(
      std::to_chars(digits_, digits_ + sizeof(digits_), first).ptr - digits_);
}

void AppendTsvRecords(const ComponentSpans& s, const char* data, size_t begin,
                      size_t end, uint64_t first_line, std::string* text) {
  RecordCursor out(text);
  LineCounter line(first_line);
  for (size_t i = begin; i < end; ++i, line.Next()) {
    out.Ensure(RowBytes(s, i) + kRecordRoom);
    line.PutTo(&out);
    if (s.error_kind[i] != 0) {
      out.Lit("\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t");
      out.Name(ErrorKindName(static_cast<ErrorKind>(s.error_kind[i])));
      out.Char('\n');
      continue;
    }
    const SpanRow row(s, data, i);
    out.Lit("\ttrue\t");
    TsvField(&out, row.scheme());
    TsvField(&out, row.userinfo());
    TsvField(&out, row.host());
    TsvField(&out, row.port());
    TsvField(&out, row.path());
    TsvField(&out, row.query());
    TsvField(&out, row.fragment());
    if (row.host()) {
      out.Name(HostKindName(row.host_kind()));
    } else {
      out.Lit("\\N");
    }
    out.Lit("\t\\N\n");
  }
}

void AppendJsonRecords(const ComponentSpans& s, const char* data,
                       const uint32_t* risk_flags, size_t begin, size_t end,
                       std::string* text) {
  RecordCursor out(text);
  const size_t room = kRecordRoom + RiskNamesRoom();
  for (size_t i = begin; i < end; ++i) {
    out.Ensure(RowBytes(s, i) + room);
    if (s.error_kind[i] != 0) {
      out.Lit("{\"valid\":false,\"error\":\"");
      out.Name(ErrorKindName(static_cast<ErrorKind>(s.error_kind[i])));
      out.Lit("\",\"at\":");
      out.Number(s.error_offset[i]);
      out.Lit("}\n");
      continue;
    }
    const SpanRow row(s, data, i);
    out.Lit("{\"valid\":true");
    JsonField(&out, ",\"scheme\":\"", row.scheme());
    JsonField(&out, ",\"userinfo\":\"", row.userinfo());
    if (const auto host = row.host()) {
      JsonField(&out, ",\"host\":\"", host);
      out.Lit(",\"host_type\":\"");
      out.Name(HostKindName(row.host_kind()));
      out.Char('"');
    }
    JsonField(&out, ",\"port\":\"", row.port());
    JsonField(&out, ",\"path\":\"", row.path());
    JsonField(&out, ",\"query\":\"", row.query());
    JsonField(&out, ",\"fragment\":\"", row.fragment());
    const uint32_t r = risk_flags[i];
    if (r != 0 && !(r & risks::kInvalid)) {
      char sep = '[';
      out.Lit(",\"risks\":");
      for (int bit = 0; bit < risks::kCount; ++bit) {
        if (!(r & (1u << bit))) continue;
        out.Char(sep);
        out.Char('"');
        out.Name(RiskFlagName(bit));
        out.Char('"');
        sep = ',';
      }
      out.Char(']');
    }
    out.Lit("}\n");
  }
}

void AppendAuditRecords(const ComponentSpans& s, const uint32_t* risk_flags,
                        size_t begin, size_t end, uint64_t first_line,
                        bool flagged_only, std::string* text) {
  RecordCursor out(text);
  LineCounter line(first_line);
  // A record holds no byte of its reference: its room is fixed.
  const size_t room = 32 + RiskNamesRoom();
  for (size_t i = begin; i < end; ++i, line.Next()) {
    out.Ensure(room);
    char* const record = out.pos();
    line.PutTo(&out);
    out.Char('\t');
    const uint32_t r = risk_flags[i];
    if (s.error_kind[i] != 0 || (r & risks::kInvalid)) {
      out.Lit("invalid\n");
      continue;
    }
    bool first = true;
    if (flagged_only && r == 0) {  // the record is taken back
      out.pos() = record;
      continue;
    }
    constexpr uint32_t kNamed = (1u << risks::kCount) - 1;
    for (uint32_t bits = r & kNamed; bits != 0; bits &= bits - 1) {
      if (!first) out.Char(',');
      out.Name(RiskFlagName(__builtin_ctz(bits)));
      first = false;
    }
    out.Char('\n');
  }
}

}  // namespace cli
}  // namespace uriscan
