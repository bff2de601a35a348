// SPDX-License-Identifier: MIT
// Records of a run of rows written straight from the scan's columns, with
// no UriReference, no per-row allocation and no number formatting per row:
// the output of the commands whose records are the components (`parse`,
// `audit`). A valid reference holds only printable ASCII without '"', '\\',
// TAB, CR or LF (RFC 3986 Appendix A), so its components are copied as
// they are; an invalid row writes only its error kind and offset.
#ifndef URISCAN_SRC_CLI_RECORDS_H_
#define URISCAN_SRC_CLI_RECORDS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace cli {

// Appends to a std::string through a raw pointer: Ensure() makes room for
// the most the next record can take (the string grows by half again when
// it must), Put*() write, Done() cuts the string back to what was written.
class RecordCursor {
 public:
  explicit RecordCursor(std::string* out) : out_(out) {}
  RecordCursor(const RecordCursor&) = delete;
  RecordCursor& operator=(const RecordCursor&) = delete;
  ~RecordCursor() { Done(); }

  void Ensure(size_t room) {
    if (p_ && static_cast<size_t>(end_ - p_) >= room) return;
    const size_t used =
        p_ ? static_cast<size_t>(p_ - out_->data()) : out_->size();
    out_->resize(used + std::max(room, std::max(used / 2, size_t{1} << 16)));
    p_ = out_->data() + used;
    end_ = out_->data() + out_->size();
  }
  void Done() {
    if (p_) out_->resize(static_cast<size_t>(p_ - out_->data()));
    p_ = end_ = nullptr;
  }

  // n bytes of s, reading none past s + n.
  void Put(const char* s, size_t n) {
    char* p = p_;
    if (n >= 8 && n <= 16) {
      uint64_t a, b;
      std::memcpy(&a, s, 8);
      std::memcpy(&b, s + n - 8, 8);
      std::memcpy(p, &a, 8);
      std::memcpy(p + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
      uint32_t a, b;
      std::memcpy(&a, s, 4);
      std::memcpy(&b, s + n - 4, 4);
      std::memcpy(p, &a, 4);
      std::memcpy(p + n - 4, &b, 4);
    } else if (n > 0 && n < 4) {
      p[0] = s[0];
      p[n / 2] = s[n / 2];
      p[n - 1] = s[n - 1];
    } else if (n > 16) {
      std::memcpy(p, s, n);
    }
    p_ = p + n;
  }
  // A string literal, its size known when compiled.
  template <size_t N>
  void Lit(const char (&s)[N]) {
    std::memcpy(p_, s, N - 1);
    p_ += N - 1;
  }
  void Char(char c) { *p_++ = c; }
  // A NUL-terminated name (error kinds, risk flags: short, static).
  void Name(const char* s) { Put(s, std::strlen(s)); }
  void Number(uint64_t v);
  char*& pos() { return p_; }

 private:
  std::string* out_;
  char* p_ = nullptr;
  char* end_ = nullptr;
};

// Row i of a scan's columns with the accessors of UriReference, each
// reading only the columns it needs (ComponentSpans::Row() gathers every
// boundary of the row first).
class SpanRow {
 public:
  SpanRow(const ComponentSpans& s, const char* data, size_t i)
      : s_(s), data_(data), i_(i), flags_(s.flags[i]) {}
  bool valid() const { return s_.error_kind[i_] == 0; }
  ScanError error() const { return s_.Error(i_); }
  uint16_t flags() const { return flags_; }
  HostKind host_kind() const {
    return static_cast<HostKind>((flags_ & flags::kHostKindMask) >>
                                 flags::kHostKindShift);
  }
  std::string_view text() const { return Slice(s_.uri_begin, s_.uri_end); }
  std::optional<std::string_view> scheme() const {
    return Defined(flags::kHasScheme, s_.uri_begin, s_.scheme_end);
  }
  std::optional<std::string_view> authority() const {
    return Defined(flags::kHasAuthority, s_.authority_begin, s_.path_begin);
  }
  std::optional<std::string_view> userinfo() const {
    return Defined(flags::kHasUserinfo, s_.authority_begin, s_.userinfo_end);
  }
  std::optional<std::string_view> host() const {
    return Defined(flags::kHasAuthority, s_.host_begin, s_.host_end);
  }
  std::optional<std::string_view> port() const {
    return Defined(flags::kHasPort, s_.port_begin, s_.path_begin);
  }
  std::string_view path() const { return Slice(s_.path_begin, s_.path_end); }
  std::optional<std::string_view> query() const {
    if (!(flags_ & flags::kHasQuery)) return std::nullopt;
    const uint32_t end = (flags_ & flags::kHasFragment)
                             ? s_.fragment_begin[i_] - 1
                             : s_.uri_end[i_];
    return std::string_view(data_ + s_.query_begin[i_],
                            end - s_.query_begin[i_]);
  }
  std::optional<std::string_view> fragment() const {
    return Defined(flags::kHasFragment, s_.fragment_begin, s_.uri_end);
  }

 private:
  std::string_view Slice(const std::vector<uint32_t>& b,
                         const std::vector<uint32_t>& e) const {
    return std::string_view(data_ + b[i_], e[i_] - b[i_]);
  }
  std::optional<std::string_view> Defined(
      uint16_t flag, const std::vector<uint32_t>& b,
      const std::vector<uint32_t>& e) const {
    if (!(flags_ & flag)) return std::nullopt;
    return Slice(b, e);
  }
  const ComponentSpans& s_;
  const char* data_;
  size_t i_;
  uint16_t flags_;
};

// A line number counted up in decimal text, for records that carry one:
// the digits are incremented in place, never formatted anew.
class LineCounter {
 public:
  explicit LineCounter(uint64_t first);
  // Writes the current number (24 bytes of room are needed).
  void PutTo(RecordCursor* out) {
    std::memcpy(out->pos(), digits_, sizeof(digits_));
    out->pos() += size_;
  }
  void Next() {
    size_t k = size_;
    while (k > 0 && digits_[k - 1] == '9') digits_[--k] = '0';
    if (k > 0) {
      ++digits_[k - 1];
    } else {  // 99 -> 100
      digits_[0] = '1';
      digits_[size_++] = '0';
    }
  }

 private:
  char digits_[24];
  size_t size_ = 0;
};

// `parse --format=tsv` (the default columns) for rows [begin, end) of
// `spans` over `data`, row i numbered first_line + (i - begin).
void AppendTsvRecords(const ComponentSpans& spans, const char* data,
                      size_t begin, size_t end, uint64_t first_line,
                      std::string* out);
// `parse` (JSON Lines) for rows [begin, end), `risk_flags` the risk column
// of those rows (indexed by row).
void AppendJsonRecords(const ComponentSpans& spans, const char* data,
                       const uint32_t* risk_flags, size_t begin, size_t end,
                       std::string* out);
// `audit` for rows [begin, end): LINE<TAB>FLAGS; with `flagged_only`, of
// the rows with a flag (an invalid row has one) only.
void AppendAuditRecords(const ComponentSpans& spans, const uint32_t* risk_flags,
                        size_t begin, size_t end, uint64_t first_line,
                        bool flagged_only, std::string* out);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_RECORDS_H_
