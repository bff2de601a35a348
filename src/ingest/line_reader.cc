// SPDX-License-Identifier: MIT
// LineReader: chunked reading, line batching, over-long line handling.
#include "src/ingest/line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstring>
#include <string_view>

#include "uriscan/normalize.h"
#include "uriscan/spans.h"

namespace uriscan {
namespace ingest {
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
  decoder_.reset();  // stops its thread, which may read fd_
  mapping_.reset();  // runs still in flight keep their own reference
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  owns_fd_ = false;
}

bool LineReader::Open(const std::string& path, std::string* error) {
  Close();
  eof_ = skipping_ = damaged_ = dropped_bom_ = stopped_ = regular_ = false;
  at_start_ = true;
  begin_ = end_ = no_newline_ = 0;
  size_ = read_ = 0;
  last_ = Lines{};
  error_.clear();
  error_number_ = 0;
  if (path == "-") {
    fd_ = 0;
  } else {
    // O_NONBLOCK: opening a FIFO would wait for a writer (reads then wait
    // in WaitReadable(), which a stop ends).
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
      error_number_ = errno;
      *error = std::strerror(error_number_);
      return false;
    }
    owns_fd_ = true;
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    regular_ = true;
    size_ = static_cast<uint64_t>(st.st_size);
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  // Plain text of a regular file is mapped when the process guards its
  // mappings (no copy); compressed input is read by its decoder.
  char head[4];
  if (regular_ && map_files_ && size_ > 0 &&
      ::pread(fd_, head, sizeof(head), 0) >= 0 &&
      Sniff(std::string_view(head, std::min<uint64_t>(size_, 4))) ==
          Compression::kNone &&
      (mapping_ = MappedFile::Map(fd_, static_cast<size_t>(size_))))
    return true;
  SniffStream();
  if (stopped_) {
    *error = "stopped";
    return false;
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

bool LineReader::Stopping() {
  if (stop_.load(std::memory_order_relaxed) || InterruptRequested())
    stopped_ = true;
  return stopped_;
}

bool LineReader::WaitReadable() {
  while (!Ready(100)) {
    if (Stopping()) return false;
  }
  return !Stopping();
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
  while (end_ < 4 && !HasNewline(buf_.get(), end_) && Fill()) {
  }
  const Compression compression = Sniff(std::string_view(buf_.get(), end_));
  if (compression == Compression::kNone) return;
  CompressedSource source;
  source.head.assign(buf_.get(), end_);
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

size_t LineReader::CapRows(const char* p, size_t n) {
  if (min_bytes_ != 0 || !count_rows_) return n;
  return CutAtRows(p, n, max_rows_, &counted_lines_);
}

bool ReleaseRun(Lines* l) {
  const bool whole = !l->mapped || !l->mapped->faulted();
  if (l->mapped && !l->mapped_bytes.empty())
    l->mapped->Release(l->mapped_bytes.data(), l->mapped_bytes.size());
  *l = Lines{};
  return whole;
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

namespace {

// A buffer of n bytes, not initialized (they are read into at once).
std::shared_ptr<char> NewBuffer(size_t n) {
  return std::shared_ptr<char>(new char[n], std::default_delete<char[]>());
}

}  // namespace

void LineReader::Rebuffer(std::string_view front, size_t room) {
  const size_t pending = end_ - begin_;
  const size_t capacity = std::max(capacity_, front.size() + pending + room);
  std::shared_ptr<char> fresh = NewBuffer(capacity);
  if (!front.empty()) std::memcpy(fresh.get(), front.data(), front.size());
  if (pending > 0)
    std::memcpy(fresh.get() + front.size(), buf_.get() + begin_, pending);
  buf_ = std::move(fresh);
  capacity_ = capacity;
  begin_ = 0;
  end_ = front.size() + pending;
}

void LineReader::Reserve(size_t more) {
  const size_t pending = end_ - begin_;
  // A line longer than the buffer grows it geometrically: by `more` alone
  // (a pipe reads 64 KiB at a time) each read of a long line copied all of
  // it again, quadratic in the line (a 24 MiB line took 7 s).
  if (!buf_ || capacity_ < pending + more)
    return Rebuffer({}, std::max(more, pending));
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, pending);
    begin_ = 0;
    end_ = pending;
  }
}

void LineReader::HandOut(size_t n, Lines* out) {
  const size_t pending = end_ - begin_ - n;
  last_copied_ = pending > n;
  if (last_copied_) {
    // A run cut short (its rows capped, a pipe's few lines): the run is
    // copied into a buffer of its own size, the reader keeps its buffer.
    std::shared_ptr<char> copy = NewBuffer(n);
    std::memcpy(copy.get(), buf_.get() + begin_, n);
    out->owner = std::move(copy);
    out->text = std::string_view(out->owner.get(), n);
    begin_ += n;
  } else {
    // The usual run, most of the buffer: the buffer goes with it, and the
    // reader goes on in a new one, with the bytes after the run (part of
    // a line) copied there.
    out->owner = buf_;
    out->text = std::string_view(buf_.get() + begin_, n);
    begin_ += n;
    Rebuffer({}, chunk_);
  }
  no_newline_ = 0;
  last_.text = out->text;
  last_.owner = out->owner;
}

void LineReader::Unread(size_t n) {
  no_newline_ = 0;
  if (n == 0) return;
  // The last n bytes handed out go back before what is pending: a mapped
  // file's, and a run copied out of the reader's buffer, are still there.
  if (mapping_ || last_copied_) {
    begin_ -= n;
  } else {
    Rebuffer(last_.text.substr(last_.text.size() - n), chunk_);
  }
  last_ = Lines{};
  last_copied_ = false;
}

bool LineReader::Fill() {
  if (eof_) return false;
  Reserve(chunk_);
  char* dst = buf_.get() + end_;
  const size_t room = capacity_ - end_;
  if (decoder_) {
    if (Stopping()) {
      eof_ = true;
      return false;
    }
    const size_t got = decoder_->Read(dst, room);
    end_ += got;
    if (got > 0) return true;
    eof_ = true;
    error_ = decoder_->error();
    damaged_ = !error_.empty() && error_.compare(0, 5, "read ") != 0;
    return false;
  }
  if (on_wait_ && !regular_ && !WaitTurn()) {
    eof_ = true;
    return false;
  }
  for (;;) {
    if (Stopping() || (!regular_ && !WaitReadable())) {
      eof_ = true;
      return false;
    }
    const ssize_t got = ::read(fd_, dst, room);
    if (got > 0) {
      end_ += static_cast<size_t>(got);
      read_ += static_cast<uint64_t>(got);
      return true;
    }
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    eof_ = true;
    if (got < 0) {
      error_number_ = errno;
      error_ = std::strerror(error_number_);
    } else if (regular_ && read_ < size_) {
      // Cut while it was read (logrotate's copytruncate): the lines before
      // the cut were read; the rest is not there to read.
      // Its size now (0 when emptied), not the bytes read before the cut.
      struct stat st;
      const uint64_t now = ::fstat(fd_, &st) == 0
                               ? static_cast<uint64_t>(st.st_size)
                               : read_;
      error_ = "the file shrank to " + std::to_string(now) +
               " bytes while it was read (it had " + std::to_string(size_) +
               "): the lines after the cut were not read";
    }
    return false;
  }
}

LineReader::Status LineReader::Next(Lines* out) {
  counted_lines_ = kUncounted;
  out->text = {};
  out->mapped = nullptr;
  out->mapped_bytes = {};
  if (mapping_) {
    const Status st = NextMapped(out);
    const bool counted = st == Status::kLines && counted_lines_ != kUncounted;
    out->counted_at = out->text.data();
    out->counted_bytes = counted ? out->text.size() : 0;
    out->counted_lines = counted ? counted_lines_ : 0;
    return st;
  }
  if (at_start_) {
    while (end_ - begin_ < 3 && !HasNewline(buf_.get() + begin_, end_ - begin_) &&
           Fill()) {
    }
    DropBom(buf_.get() + begin_, end_ - begin_, &begin_);
  }
  const Status st = NextRun(out);
  const bool counted = st == Status::kLines && counted_lines_ != kUncounted;
  out->counted_at = out->text.data();
  out->counted_bytes = counted ? out->text.size() : 0;
  out->counted_lines = counted ? counted_lines_ : 0;
  return st;
}

// As NextRun() on the mapped bytes: whole lines up to the last "\n" of the
// next chunk; a line longer than a chunk whole; the last line without "\n".
// The file's size is checked first: one that shrank is an error, as it is
// when read, rather than a run of pages that are gone.
LineReader::Status LineReader::NextMapped(Lines* out) {
  const char* data = mapping_->data();
  const size_t size = mapping_->size();
  if (at_start_) DropBom(data, size, &begin_);
  if (begin_ >= size) return Status::kEnd;
  struct stat st;
  if (::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < size_) {
    error_ = "the file shrank to " + std::to_string(st.st_size) +
             " bytes while it was read (it had " + std::to_string(size_) +
             "): the lines after the cut were not read";
    return Status::kError;
  }
  const char* p = data + begin_;
  const size_t left = size - begin_;
  const size_t take = std::min(std::max(chunk_, min_bytes_), left);
  out->owner = std::shared_ptr<const char>(mapping_, p);
  out->mapped = mapping_.get();
  if (const void* last = ::memrchr(p, '\n', take)) {
    size_t n = static_cast<size_t>(static_cast<const char*>(last) - p) + 1;
    // Asked for at least the rest of the file (a record read on to its
    // end): the last line, without "\n", comes with it, as it does from a
    // pipe; handed out alone, a record cut there never grew and was asked
    // for again for ever.
    if (min_bytes_ > 0 && take == left) n = left;
    n = CapRows(p, n);
    out->text = out->mapped_bytes = std::string_view(p, n);
    begin_ += n;
    return Status::kLines;
  }
  const void* nl = std::memchr(p + take, '\n', left - take);
  const size_t line = nl ? static_cast<size_t>(static_cast<const char*>(nl) - p)
                         : left;
  const size_t n = nl ? line + 1 : left;
  begin_ += n;
  // The "\r" of a "\r\n" is no part of the line (as in the scan).
  if (line - (nl && line > 0 && p[line - 1] == '\r') > max_line_) {
    if (on_long_line_) on_long_line_(std::string_view(p, n));
    dropped_bytes_ = n;
    out->owner.reset();
    out->mapped = nullptr;
    return Status::kTooLongLine;
  }
  out->text = out->mapped_bytes = std::string_view(p, n);
  return Status::kLines;
}

LineReader::Status LineReader::NextRun(Lines* out) {
  const auto ended = [&] {
    if (stopped_) return Status::kStopped;
    return error_.empty() ? Status::kEnd : Status::kError;
  };
  // A failed read or a stop is final: what is left in the buffer (lines
  // given back with Unread() among them) is not handed out again, so a
  // caller that reads on for a whole record cannot loop on it.
  if (eof_ && (stopped_ || !error_.empty())) return ended();
  for (;;) {
    if (skipping_) {  // an over-long line, up to its "\n"
      const char* from = buf_.get() + begin_;
      const void* nl = std::memchr(from, '\n', end_ - begin_);
      const size_t n = nl ? static_cast<size_t>(
                                static_cast<const char*>(nl) - from) + 1
                          : end_ - begin_;
      if (on_long_line_) on_long_line_(std::string_view(from, n));
      dropped_bytes_ += n;
      begin_ += n;
      no_newline_ = 0;
      if (nl) {
        skipping_ = false;
        return Status::kTooLongLine;
      }
      if (!Fill()) {
        if (stopped_ || !error_.empty()) return ended();
        skipping_ = false;
        return Status::kTooLongLine;  // the last line, with no "\n"
      }
      continue;
    }
    // Whole lines end at the last '\n' in the buffer. The first
    // `no_newline_` bytes were searched before: a long line read in many
    // small pieces (a pipe gives 64 KiB at a time) is searched once.
    const char* base = buf_.get() + begin_;
    size_t last = end_ - begin_;
    if (last > no_newline_) {
      const void* nl = ::memrchr(base + no_newline_, '\n', last - no_newline_);
      last = nl ? static_cast<size_t>(static_cast<const char*>(nl) - base) + 1
                : no_newline_;
    }
    if (last == no_newline_) {
      no_newline_ = end_ - begin_;
      last = 0;
    }
    // (A pipe's lines are handed out as they come, not gathered into a
    // chunk: on two cores, topping a run up while more was ready made
    // `cat file | uriscan validate --threads=2` 10-20 % slower.)
    // (max_line bytes may be followed by the "\r" of a "\r\n")
    const bool long_line = end_ - begin_ - last > max_line_ + 1;
    if (last > 0 && (last >= min_bytes_ || eof_ || long_line)) {
      HandOut(CapRows(base, last), out);
      return Status::kLines;
    }
    if (long_line) {
      skipping_ = true;
      dropped_bytes_ = 0;
      continue;
    }
    if (!Fill()) {
      if (stopped_ || !error_.empty()) return ended();
      if (begin_ == end_) return Status::kEnd;
      // The last line has no "\n": it is a line all the same.
      HandOut(end_ - begin_, out);
      return Status::kLines;
    }
  }
}

}  // namespace ingest
}  // namespace uriscan
