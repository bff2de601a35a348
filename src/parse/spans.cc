// SPDX-License-Identifier: MIT
// Batches and ComponentSpans: building, filling, checking.
#include "uriscan/spans.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <string_view>

#include "kernels/kernels.h"

namespace uriscan {

namespace {

// Lines are split in pieces this long, so that the bit words or line ends
// of a piece stay on the stack and its bytes in L1.
constexpr size_t kPiece = 4 * 1024;

// SplitLines writes lines in whole 64-byte pieces, so the last may write past
// the line (the next line overwrites it): the batch's bytes have this much
// room past the end while they are built.
constexpr size_t kCopyPiece = 64;

// The columns the kernels write (kernels/columns.h) are the public ones, in
// the same order.
#define URISCAN_NAME(name) std::string_view(#name),
constexpr std::string_view kPublicColumns[] = {
    URISCAN_SPAN_BOUNDARIES(URISCAN_NAME)};
constexpr std::string_view kKernelColumns[] = {
    URISCAN_BOUNDARY_COLUMNS(URISCAN_NAME)};
#undef URISCAN_NAME
constexpr bool SameColumns() {
  if (std::size(kPublicColumns) != std::size(kKernelColumns)) return false;
  for (size_t i = 0; i < std::size(kPublicColumns); ++i)
    if (kPublicColumns[i] != kKernelColumns[i]) return false;
  return true;
}
static_assert(SameColumns(),
              "kernels/columns.h and uriscan/spans.h list other columns");

}  // namespace

const char* DispatchedTargetName() { return kernels::DispatchedTargetName(); }

const char* RequestedTarget(bool* honoured) {
  return kernels::RequestedTarget(honoured);
}

bool BatchFromLines(std::string_view bytes, OwnedBatch* out) {
  out->offsets.assign(1, 0);
  if (bytes.size() >= std::numeric_limits<uint32_t>::max()) {
    out->data.clear();
    return false;
  }
  // Growing the vector value-initializes only the part beyond its old size,
  // so a reused batch is not cleared first.
  out->data.resize(bytes.size() + kCopyPiece);
  const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
  auto* dst = reinterpret_cast<uint8_t*>(out->data.data());
  kernels::LineCopy copy;
  uint32_t ends[kPiece];
  for (size_t piece = 0; piece < bytes.size(); piece += kPiece) {
    const size_t n = std::min(kPiece, bytes.size() - piece);
    const size_t lines =
        kernels::SplitLines(in, bytes.size(), piece, n, dst, ends, &copy);
    out->offsets.insert(out->offsets.end(), ends, ends + lines);
  }
  size_t written = copy.written;
  if (copy.line_begin < bytes.size()) {  // the rest of a last open line
    const size_t rest = bytes.size() - copy.line_begin;
    std::memcpy(dst + written, in + copy.line_begin, rest);
    written += rest;
  }
  if (!bytes.empty() && bytes.back() != '\n')  // a last line without "\n"
    out->offsets.push_back(static_cast<uint32_t>(written));
  out->data.resize(written);
  return true;
}

size_t CountLines(std::string_view bytes) {
  uint64_t words[kPiece / 64];
  size_t n = 0;
  for (size_t piece = 0; piece < bytes.size(); piece += kPiece) {
    n += kernels::NewlineMasks(
        reinterpret_cast<const uint8_t*>(bytes.data() + piece),
        std::min(kPiece, bytes.size() - piece), words);
  }
  return n + (!bytes.empty() && bytes.back() != '\n');
}

void ComponentSpans::Resize(size_t n) {
#define URISCAN_RESIZE(name) name.resize(n);
  URISCAN_SPAN_BOUNDARIES(URISCAN_RESIZE)
#undef URISCAN_RESIZE
  flags.resize(n);
  error_kind.resize(n);
  error_offset.resize(n);
}

void ComponentSpans::SetRow(size_t i, uint32_t begin, const UriReference& uri) {
  const Boundaries& b = uri.boundaries();
  uri_begin[i] = begin;
#define URISCAN_SET(name) name[i] = begin + b.name;
  URISCAN_INNER_BOUNDARIES(URISCAN_SET)
#undef URISCAN_SET
  uri_end[i] = begin + static_cast<uint32_t>(uri.text().size());
  flags[i] = uri.flags();
  error_kind[i] = static_cast<uint8_t>(uri.error().kind);
  error_offset[i] = uri.error().offset;
}

UriReference ComponentSpans::Row(size_t i, const char* data) const {
  const uint32_t base = uri_begin[i];
  Boundaries b;
#define URISCAN_GET(name) b.name = name[i] - base;
  URISCAN_INNER_BOUNDARIES(URISCAN_GET)
#undef URISCAN_GET
  return UriReference(std::string_view(data + base, uri_end[i] - base), b,
                      flags[i], Error(i));
}

bool ComponentSpans::Validate(size_t i) const {
  if (i >= size()) return false;
  const uint32_t cols[] = {
#define URISCAN_VALUE(name) name[i],
      URISCAN_SPAN_BOUNDARIES(URISCAN_VALUE)
#undef URISCAN_VALUE
  };
  for (size_t k = 1; k < sizeof(cols) / sizeof(cols[0]); ++k)
    if (cols[k] < cols[k - 1]) return false;
  const bool valid = error_kind[i] == 0;
  if (error_kind[i] >= kErrorKindCount) return false;
  if (!valid) {
    // Invalid rows: no flags, every boundary at uri_begin but the end.
    for (size_t k = 1; k + 1 < sizeof(cols) / sizeof(cols[0]); ++k)
      if (cols[k] != uri_begin[i]) return false;
    return flags[i] == 0 &&
           (error_offset[i] <= uri_end[i] - uri_begin[i] ||
            error_kind[i] == static_cast<uint8_t>(ErrorKind::kTooLong));
  }
  return error_offset[i] == 0;
}

void ScanScalar(const Batch& batch, ComponentSpans* spans) {
  spans->Resize(batch.count);
  for (size_t i = 0; i < batch.count; ++i) {
    spans->SetRow(i, batch.offsets[i], ParseUriReference(batch.Get(i)));
  }
}

namespace {

kernels::SpanColumns Columns(ComponentSpans* s) {
  kernels::SpanColumns c;
#define URISCAN_POINTER(name) c.name = s->name.data();
  URISCAN_SPAN_BOUNDARIES(URISCAN_POINTER)
#undef URISCAN_POINTER
  c.flags = s->flags.data();
  c.error_kind = s->error_kind.data();
  c.error_offset = s->error_offset.data();
  return c;
}

// The rows the fast path left (errors, IP literals, long rows), through the
// scalar parser.
void SettleRest(const char* data, ComponentSpans* spans) {
  const uint8_t* kinds = spans->error_kind.data();
  const size_t n = spans->size();
  for (size_t i = 0; i < n; ++i) {
    // The rows left are few: memchr finds the next one.
    const void* next = std::memchr(kinds + i, kernels::kNeedsScalar, n - i);
    if (next == nullptr) break;
    i = static_cast<size_t>(static_cast<const uint8_t*>(next) - kinds);
    const uint32_t b = spans->uri_begin[i];
    spans->SetRow(i, b, ParseUriReference(std::string_view(
                            data + b, spans->uri_end[i] - b)));
  }
}

}  // namespace

struct Scanner::Scratch {
  std::vector<uint64_t> masks =
      std::vector<uint64_t>(kernels::kScratchMaskWords);
  std::vector<uint32_t> rows =
      std::vector<uint32_t>(5 * kernels::kScratchRowEntries);
  // ScanLines' last text: its lines per byte, the first guess of the next.
  double lines_per_byte = 1.0 / 40;
  kernels::ScanScratch view() {
    uint32_t* r = rows.data();
    const size_t n = kernels::kScratchRowEntries;
    return kernels::ScanScratch{masks.data(), r, r + n, r + 2 * n, r + 3 * n,
                                r + 4 * n};
  }
};

Scanner::Scanner() : scratch_(std::make_unique<Scratch>()) {}
Scanner::~Scanner() = default;

void Scanner::Scan(const Batch& batch, ComponentSpans* spans) {
  spans->Resize(batch.count);
  if (batch.count == 0) return;
  kernels::ScanBatch(reinterpret_cast<const uint8_t*>(batch.data),
                     batch.offsets, batch.count, scratch_->view(),
                     Columns(spans));
  SettleRest(batch.data, spans);
}

bool Scanner::ScanLines(std::string_view text, ComponentSpans* spans,
                        size_t lines) {
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    spans->Resize(0);
    return false;
  }
  ScanFirstLines(text, spans, lines, std::numeric_limits<size_t>::max());
  return true;
}

size_t Scanner::ScanLinesUpTo(std::string_view text, ComponentSpans* spans,
                              size_t max_rows) {
  if (text.size() >= std::numeric_limits<uint32_t>::max() || max_rows == 0) {
    spans->Resize(0);
    return 0;
  }
  return ScanFirstLines(text, spans, 0, max_rows);
}

size_t Scanner::ScanFirstLines(std::string_view text, ComponentSpans* spans,
                               size_t lines, size_t max_rows) {
  const auto* data = reinterpret_cast<const uint8_t*>(text.data());
  // Columns grow as lines come: to the caller's count, or to a guess from
  // the lines per byte of what is scanned so far (of this scanner's last
  // text at first), by a quarter at least (a text whose lines get shorter
  // and shorter takes a few rounds, not one per 64 lines), never past
  // max_rows. The kernel stops when they are full and goes on from there.
  // (Growing initializes the new rows, so a guess far above the count
  // would cost a fill of the excess each time.) The first guess, from the
  // last text, covers at most its first MiB: a text of one huge line fills
  // no columns for the lines of the last one.
  auto guess = [&](size_t rows, size_t pos, size_t end, size_t at_least) {
    const double per_byte = pos != 0 ? static_cast<double>(rows) / pos
                                     : scratch_->lines_per_byte;
    const double more = static_cast<double>(end - pos) * per_byte;
    const size_t want = std::max(
        rows + static_cast<size_t>(more * 1.02) + 64, at_least);
    return want > max_rows ? max_rows : want;
  };
  constexpr size_t kFirstGuessBytes = size_t{1} << 20;
  size_t rows = 0, pos = 0;
  size_t capacity =
      lines != 0 ? std::min(lines, max_rows)
                 : guess(0, 0, std::min(text.size(), kFirstGuessBytes), 0);
  while (pos < text.size() && rows < max_rows) {
    spans->Resize(capacity);
    pos = kernels::ScanLines(data, text.size(), pos, scratch_->view(),
                             Columns(spans), rows, capacity, &rows);
    capacity = guess(rows, pos, text.size(), capacity + capacity / 4);
  }
  if (pos != 0) scratch_->lines_per_byte = static_cast<double>(rows) / pos;
  spans->Resize(rows);
  SettleRest(text.data(), spans);
  return pos;
}

void Scan(const Batch& batch, ComponentSpans* spans) {
  static thread_local Scanner scanner;
  scanner.Scan(batch, spans);
}

}  // namespace uriscan
