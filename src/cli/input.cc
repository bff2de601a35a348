// SPDX-License-Identifier: MIT
// LineReader: chunked reading, line batching, over-long line handling.
#include "src/cli/input.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstring>
#include <string_view>

#include "uriscan/spans.h"

namespace uriscan {
namespace cli {
namespace {

// The number of "\n" in p[0, n), eight bytes at a time: a byte of
// x = word ^ 0x0a0a... is zero exactly where a "\n" is, and each zero byte
// leaves exactly one high bit set in ~(((x & 7f..) + 7f..) | x | 7f..);
// a multiply adds those bits up (no popcount instruction is assumed).
size_t CountNewlines(const char* p, size_t n) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  size_t count = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    const uint64_t x = word ^ 0x0a0a0a0a0a0a0a0aull;
    const uint64_t high = ~(((x & kLow7) + kLow7) | x | kLow7) >> 7;
    count += static_cast<size_t>((high * 0x0101010101010101ull) >> 56);
  }
  for (; i < n; ++i) count += p[i] == '\n';
  return count;
}

// Whether p[0, n) holds a line break: then it starts no compressed stream
// (neither magic number holds 0x0a), and a live first line need not wait.
bool HasNewline(const char* p, size_t n) {
  return n != 0 && std::memchr(p, '\n', n) != nullptr;  // (p is null before a read)
}

// The first `n` bytes of `p` (whole lines) cut back to `max_rows` lines at
// most: the length of those lines; how many there are in *lines when they
// were counted (else it is left alone).
size_t CutAtRows(const char* p, size_t n, size_t max_rows, size_t* lines) {
  if (n <= max_rows) return n;  // a line is a byte at least
  // The common case, a chunk of no more lines than that, takes one pass of
  // the SIMD newline kernel (the byte-word count below cost validate about
  // a third more CPU on the main thread).
  const size_t all = CountLines(std::string_view(p, n));
  if (all <= max_rows) {
    *lines = all;
    return n;
  }
  constexpr size_t kBlock = 4096;
  size_t rows = 0;
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t k = std::min(kBlock, n - i);
    const size_t here = CountNewlines(p + i, k);
    if (rows + here >= max_rows) {
      for (size_t j = i; j < i + k; ++j) {
        if (p[j] == '\n' && ++rows == max_rows) {
          *lines = max_rows;
          return j + 1;
        }
      }
    }
    rows += here;
  }
  return n;
}

}  // namespace

LineReader::LineReader(size_t chunk_bytes, size_t max_line_bytes)
    : chunk_(chunk_bytes),
      max_line_(max_line_bytes),
      max_rows_(std::max<size_t>(chunk_bytes / kMinBytesPerRow, 1)) {}

LineReader::~LineReader() { Close(); }

void LineReader::Close() {
  decoder_.reset();  // stops its thread, which may hold fd_ or the mapping
  mapping_.reset();  // chunks still in flight keep their own reference
  mapped_size_ = 0;
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  owns_fd_ = false;
}

bool LineReader::Open(const std::string& path, std::string* error) {
  Close();
  eof_ = skipping_ = damaged_ = dropped_bom_ = false;
  at_start_ = true;
  begin_ = end_ = no_newline_ = 0;
  size_ = read_ = 0;
  error_.clear();
  if (path == "-") {
    fd_ = 0;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      *error = std::strerror(errno);
      return false;
    }
    owns_fd_ = true;
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    size_ = static_cast<uint64_t>(st.st_size);
  if (path == "-") {
    SniffStream();
    return true;
  }
  if (!Map()) {
    SniffStream();
    return true;
  }
  const char* data = static_cast<const char*>(mapping_.get());
  const Compression compression =
      Sniff(std::string_view(data, std::min<size_t>(mapped_size_, 4)));
  if (compression != Compression::kNone) {
    CompressedSource source;
    source.mapped = std::string_view(data, mapped_size_);
    source.keep = std::move(mapping_);
    decoder_ = std::make_unique<Decoder>(compression, std::move(source));
    mapped_size_ = 0;
  }
  return true;
}

uint64_t LineReader::position() const {
  if (decoder_) return decoder_->consumed();
  return mapping_ ? begin_ : read_;
}

bool LineReader::Ready(int ms) const {
  struct pollfd p = {fd_, POLLIN, 0};
  int n;
  while ((n = ::poll(&p, 1, ms)) < 0 && errno == EINTR) {
  }
  return n != 0;
}

bool LineReader::WaitTurn() {
  const auto grace = std::chrono::milliseconds(kWaitGraceMs);
  for (;;) {
    const bool quiet = !Ready(kWaitGraceMs);
    const auto now = std::chrono::steady_clock::now();
    if (!quiet && now - last_wait_ < grace) return true;
    last_wait_ = now;
    const Flight flight = on_wait_();
    if (flight == Flight::kStop) return false;
    if (!quiet || flight == Flight::kNone) return true;
  }
}

void LineReader::SniffStream() {
  // Up to 4 bytes (the longest magic number), however a pipe splits them.
  while (end_ < 4 && !HasNewline(buf_.data(), end_) && Fill()) {
  }
  const Compression compression = Sniff(std::string_view(buf_.data(), end_));
  if (compression == Compression::kNone) return;
  CompressedSource source;
  source.head.assign(buf_.data(), end_);
  source.fd = eof_ ? -1 : fd_;
  begin_ = end_ = 0;
  eof_ = false;
  decoder_ = std::make_unique<Decoder>(compression, std::move(source));
}

// A UTF-8 byte-order mark (EF BB BF) at the start of a stream is no part of
// its first line: step over it.
void LineReader::DropBom(const char* data, size_t size, size_t* begin) {
  at_start_ = false;
  if (size >= 3 && std::memcmp(data, "\xef\xbb\xbf", 3) == 0) {
    *begin += 3;
    dropped_bom_ = true;
  }
}

bool LineReader::Map() {
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
    return false;
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (p == MAP_FAILED) return false;  // read() it instead
  ::madvise(p, size, MADV_SEQUENTIAL);
  mapping_ = std::shared_ptr<const void>(
      p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  mapped_size_ = size;
  return true;
}

size_t LineReader::CapRows(const char* p, size_t n) {
  if (min_bytes_ != 0 || !count_rows_) return n;
  return CutAtRows(p, n, max_rows_, &counted_lines_);
}

void ReleaseMapped(Lines* l) {
  if (!l->mapping || l->mapped.empty()) return;
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(l->mapped.data());
  const uintptr_t end = begin + l->mapped.size();
  const uintptr_t first = (begin + page - 1) & ~(page - 1);
  const uintptr_t last = end & ~(page - 1);
  if (first < last)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
  l->mapped = {};
}

size_t CountedLines(const Lines& l) {
  const bool applies = l.counted_bytes != 0 && l.counted_at == l.text.data() &&
                       l.counted_bytes == l.text.size();
  return applies ? l.counted_lines : 0;
}

size_t LineCount(const Lines& l) {
  const size_t counted = CountedLines(l);
  return counted != 0 || l.text.empty() ? counted : CountLines(l.text);
}

LineReader::Status LineReader::Next(Lines* out) {
  counted_lines_ = kUncounted;
  Status st;
  if (mapping_) {
    st = NextMapped(out);
  } else {
    out->mapping.reset();
    st = Next(&out->storage);
    out->text = out->storage;
  }
  const bool counted = st == Status::kLines && counted_lines_ != kUncounted;
  out->counted_at = out->text.data();
  out->counted_bytes = counted ? out->text.size() : 0;
  out->counted_lines = counted ? counted_lines_ : 0;
  return st;
}

// As Next() on the mapped bytes: whole lines up to the last "\n" of the
// next chunk; a line longer than a chunk whole; the last line without "\n".
LineReader::Status LineReader::NextMapped(Lines* out) {
  out->mapping = mapping_;
  out->text = {};
  out->mapped = {};
  const char* data = static_cast<const char*>(mapping_.get());
  if (at_start_) DropBom(data, mapped_size_, &begin_);
  if (begin_ >= mapped_size_) return Status::kEnd;
  const char* p = data + begin_;
  const size_t left = mapped_size_ - begin_;
  const size_t take = std::min(std::max(chunk_, min_bytes_), left);
  if (const void* last = ::memrchr(p, '\n', take)) {
    size_t n = static_cast<size_t>(static_cast<const char*>(last) - p) + 1;
    n = CapRows(p, n);
    out->text = out->mapped = std::string_view(p, n);
    begin_ += n;
    return Status::kLines;
  }
  const void* nl = std::memchr(p + take, '\n', left - take);
  const size_t line = nl ? static_cast<size_t>(static_cast<const char*>(nl) - p)
                         : left;
  const size_t n = nl ? line + 1 : left;
  begin_ += n;
  // The "\r" of a "\r\n" is no part of the line (as in the scan).
  if (line - (nl && line > 0 && p[line - 1] == '\r') > max_line_)
    return Status::kTooLongLine;
  out->text = out->mapped = std::string_view(p, n);
  return Status::kLines;
}

void LineReader::Unread(size_t n) {
  begin_ -= n;
  no_newline_ = 0;
}

bool LineReader::Fill() {
  if (eof_) return false;
  // Move the pending partial line to the front, then read after it.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() < end_ + chunk_) buf_.resize(end_ + chunk_);
  if (decoder_) {
    const size_t got = decoder_->Read(buf_.data() + end_, buf_.size() - end_);
    end_ += got;
    if (got > 0) return true;
    eof_ = true;
    error_ = decoder_->error();
    damaged_ = !error_.empty() && error_.compare(0, 5, "read ") != 0;
    return false;
  }
  if (on_wait_ && !WaitTurn()) {
    eof_ = true;
    return false;
  }
  for (;;) {
    const ssize_t got = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (got > 0) {
      end_ += static_cast<size_t>(got);
      read_ += static_cast<uint64_t>(got);
      return true;
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) continue;
    error_ = std::strerror(errno);
    eof_ = true;
    return false;
  }
}

LineReader::Status LineReader::Next(std::string* lines) {
  if (at_start_) {
    while (end_ - begin_ < 3 && !HasNewline(buf_.data() + begin_, end_ - begin_) &&
           Fill()) {
    }
    DropBom(buf_.data() + begin_, end_ - begin_, &begin_);
  }
  for (;;) {
    if (skipping_) {
      const void* nl = std::memchr(buf_.data() + begin_, '\n', end_ - begin_);
      if (nl) {
        begin_ = static_cast<const char*>(nl) - buf_.data() + 1;
        skipping_ = false;
      } else {
        begin_ = end_;
        no_newline_ = 0;
        if (!Fill()) return error_.empty() ? Status::kEnd : Status::kError;
        continue;
      }
    }
    // Whole lines end at the last '\n' in the buffer. The first
    // `no_newline_` bytes were searched before: a long line read in many
    // small pieces (a pipe gives 64 KiB at a time) is searched once.
    const char* base = buf_.data() + begin_;
    size_t last = end_ - begin_;
    while (last > no_newline_ && base[last - 1] != '\n') --last;
    if (last == no_newline_) {
      no_newline_ = end_ - begin_;
      last = 0;
    }
    // (A pipe's lines are handed out as they come, not gathered into a
    // chunk: on two cores, topping a run up while more was ready made
    // `cat file | uriscan validate --threads=2` 10-20 % slower.)
    if (last > 0 && (last >= min_bytes_ || eof_)) {
      last = CapRows(base, last);
      lines->assign(base, last);
      begin_ += last;
      no_newline_ = 0;
      return Status::kLines;
    }
    // (max_line bytes may be followed by the "\r" of a "\r\n")
    if (last == 0 && end_ - begin_ > max_line_ + 1) {
      lines->clear();
      skipping_ = true;
      begin_ = end_;
      no_newline_ = 0;
      return Status::kTooLongLine;
    }
    if (!Fill()) {
      if (!error_.empty()) return Status::kError;
      if (begin_ == end_) return Status::kEnd;
      // The last line has no "\n": it is a line all the same.
      lines->assign(buf_.data() + begin_, end_ - begin_);
      begin_ = end_;
      no_newline_ = 0;
      return Status::kLines;
    }
  }
}

}  // namespace cli
}  // namespace uriscan
