// SPDX-License-Identifier: MIT
// Streams newline-separated lines from a file or stdin in bounded memory.
#ifndef URISCAN_SRC_INGEST_LINE_READER_H_
#define URISCAN_SRC_INGEST_LINE_READER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/ingest/decompress.h"
#include "src/ingest/mapped_file.h"

namespace uriscan {
namespace ingest {

// A run of whole lines handed out by LineReader: `text` points into a
// buffer that `owner` keeps alive (each run owns the buffer it was read
// into), so it stays valid as long as this object does, whatever the
// reader does next; memory is then the runs in flight, not the file.
struct Lines {
  std::string_view text;
  std::shared_ptr<const char> owner;
  // The mapped file text was handed out of (the command maps regular
  // files: MappedFile), and the bytes handed out of it, for ReleaseRun().
  const MappedFile* mapped = nullptr;
  std::string_view mapped_bytes;
  // How many lines the reader counted in the text it handed out, when it
  // did (0 bytes counted when it did not); see LineCount().
  const char* counted_at = nullptr;
  size_t counted_bytes = 0;
  size_t counted_lines = 0;
};
// Lets go of a run once nothing reads it: its buffer, or the pages of the
// mapping it was handed out of. False when those pages were lost to a
// truncation (MappedFile::faulted()): the run read zeros, not the file.
bool ReleaseRun(Lines* l);

// The lines of l.text (as CountLines counts them): the reader's count when
// it still applies, else counted here.
size_t LineCount(const Lines& l);
// The reader's count of l.text's lines when it still applies, else 0.
size_t CountedLines(const Lines& l);

// Reads a stream in chunks and hands out batches of whole lines. Memory stays
// below about 2 * chunk + max_line bytes whatever the input size, plus the
// runs the caller still holds. Every input is read with read(2), never
// mapped: a file cut short while it is read (logrotate's copytruncate)
// ends in an error after the lines before the cut, never in a signal. A line
// longer than max_line is not kept: it comes out alone as kTooLongLine once
// its bytes are skipped up to the next "\n", so line numbering never shifts.
// gzip and zstd input (told by its first bytes, whatever the name) is decoded
// on a thread of its own; the lines are then those of the decoded bytes. A
// UTF-8 byte-order mark at the start of a stream is dropped.
//
// A pipe or a terminal is read as it comes: the whole lines of each read
// are handed out at once, so a slow writer's lines are not held back until
// a chunk fills; when nothing comes for a while, on_wait (set_on_wait) lets
// the caller write out what it has.
class LineReader {
 public:
  enum class Status { kLines, kTooLongLine, kEnd, kError, kStopped };
  // A run of lines holds at most chunk_bytes / kMinBytesPerRow of them
  // (unless a minimum is set), so that what a command keeps per row (about
  // 100 to 150 bytes: spans, keys, output) is bounded by the chunk's size
  // rather than by its line count: empty lines cost as much as URLs.
  static constexpr size_t kMinBytesPerRow = 32;

  LineReader(size_t chunk_bytes, size_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Maps regular files (plain text) rather than reading them, where the
  // process guards its mappings (GuardMappedFiles(): the command does).
  void set_map_files(bool on) { map_files_ = on; }
  // Opens `path`, or stdin for "-". On failure returns false with a message.
  // A FIFO is opened without waiting for its writer.
  bool Open(const std::string& path, std::string* error);
  // The next run of whole lines, raw, "\n"s included (the last line of the
  // stream may lack one) into `*out` (kLines); one over-long line
  // (kTooLongLine, `*out` empty); the end (kEnd); an I/O error, or a file
  // that shrank while it was read (kError, message in error()); or a stop
  // (kStopped: stop() or the thread's interrupt check, SetInterruptCheck in
  // uriscan/normalize.h, said so while the reader waited or skipped).
  Status Next(Lines* out);
  // Makes every wait of the reader end (from any thread): Next() then
  // returns kStopped.
  void stop() { stop_.store(true, std::memory_order_relaxed); }
  const std::string& error() const { return error_; }
  // The errno of the open (Open() false) or read (kError) that failed,
  // else 0 (damage, a file that shrank, a stop).
  int error_number() const { return error_number_; }
  // True when error() is damage in a compressed stream ("gzip: ... at
  // compressed byte N"), not a failed read.
  bool damaged() const { return damaged_; }
  // Gives back the last `n` bytes that Next() handed out: the next call
  // starts with them. Only right after a Next() that returned kLines.
  void Unread(size_t n);
  // Next() hands out at least this many bytes unless the stream ends first
  // or a line longer than max_line follows them (for records that span
  // lines; 0 by default).
  void set_min_bytes(size_t n) { min_bytes_ = n; }
  // Called with the bytes of each line longer than max_line that Next()
  // drops, in order, in pieces, its "\n" included, before Next() returns
  // kTooLongLine: for a caller that follows quotes through it (tsv, csv).
  void set_on_long_line(std::function<void(std::string_view)> f) {
    on_long_line_ = std::move(f);
  }
  // The bytes of the line the last kTooLongLine dropped, its "\n" included.
  uint64_t dropped_bytes() const { return dropped_bytes_; }
  // With false, Next() neither counts nor caps the lines of what it hands
  // out (no pass over the bytes on the caller's thread): the caller then
  // takes at most max_rows() rows at a time itself (Scanner::ScanLinesUpTo).
  void set_count_rows(bool on) { count_rows_ = on; }
  size_t max_rows() const { return max_rows_; }
  // True when Next() would return kEnd.
  bool at_end() const {
    return mapping_ ? begin_ >= mapping_->size() : eof_ && begin_ == end_;
  }
  // True when this stream began with a UTF-8 byte-order mark (dropped).
  bool dropped_bom() const { return dropped_bom_; }
  // What the caller has in flight, as on_wait tells it.
  enum class Flight { kNone, kSome, kStop };
  // Called before a read of a pipe or a terminal when nothing has come for
  // kWaitGraceMs, or when that long has passed since the last call (a pipe
  // that never goes quiet): the caller writes out what it has done. It
  // says whether work is still in flight (then it is called again after
  // each further kWaitGraceMs without input) or whether the run must stop
  // (then the input ends there, as at its end).
  void set_on_wait(std::function<Flight()> on_wait) {
    on_wait_ = std::move(on_wait);
  }
  static constexpr int kWaitGraceMs = 20;
  // The size of the input in bytes (compressed, for a compressed file) when
  // it is a regular file, else 0; and how far into it reading has come.
  uint64_t size() const { return size_; }
  uint64_t position() const;

 private:
  bool Fill();  // reads more; false on EOF, error or stop
  Status NextRun(Lines* out);
  Status NextMapped(Lines* out);
  // Bytes [begin_, begin_ + n) of the buffer into *out (its owner), the
  // rest moved to a buffer of the reader's own.
  void HandOut(size_t n, Lines* out);
  // Room for `more` bytes after end_, the pending bytes moved to the front.
  void Reserve(size_t more);
  // A new buffer holding `front`, then the pending bytes, with `room`
  // bytes after them (at least the capacity so far): runs handed out keep
  // the old one.
  void Rebuffer(std::string_view front, size_t room);
  // on_wait before a read of fd_, as set_on_wait says; false to stop.
  bool WaitTurn();
  // True when a read of fd_ would not wait (more bytes, the end or an
  // error), waiting up to `ms` for it.
  bool Ready(int ms) const;
  // Waits until fd_ can be read, looking at the stop flag and the
  // interrupt check every 100 ms; false when told to stop.
  bool WaitReadable();
  bool Stopping();
  void Close();
  // Reads the first bytes of the stream, and starts a decoder when they
  // name a compression.
  void SniffStream();
  void DropBom(const char* data, size_t size, size_t* begin);
  // The first n bytes at p (whole lines) cut back to max_rows_ lines
  // (counted into counted_lines_), unless records span lines (min_bytes_)
  // or the caller bounds its rows itself (set_count_rows).
  size_t CapRows(const char* p, size_t n);

  int fd_ = -1;
  bool owns_fd_ = false;
  bool regular_ = false;  // a regular file: read() never waits
  bool map_files_ = false;
  std::shared_ptr<MappedFile> mapping_;  // the whole file, when mapped
  bool eof_ = false;
  bool skipping_ = false;  // discarding the rest of an over-long line
  size_t chunk_;
  size_t max_line_;
  size_t max_rows_;
  // The lines CutAtRows counted in what Next() hands out, if it did.
  static constexpr size_t kUncounted = ~size_t{0};
  size_t counted_lines_ = kUncounted;
  size_t min_bytes_ = 0;
  bool count_rows_ = true;
  std::shared_ptr<char> buf_;
  size_t capacity_ = 0;
  size_t begin_ = 0, end_ = 0;
  size_t no_newline_ = 0;  // bytes from begin_ that hold no '\n' (Next)
  Lines last_;  // what Next() handed out last (for Unread)
  bool last_copied_ = false;  // ... copied: its bytes are before begin_
  std::string error_;
  int error_number_ = 0;
  std::unique_ptr<Decoder> decoder_;  // a compressed stream
  bool damaged_ = false;
  bool at_start_ = true;  // the byte-order mark is not checked yet
  bool dropped_bom_ = false;
  bool stopped_ = false;
  std::atomic<bool> stop_{false};
  std::function<Flight()> on_wait_;
  std::function<void(std::string_view)> on_long_line_;
  uint64_t dropped_bytes_ = 0;
  std::chrono::steady_clock::time_point last_wait_{};
  uint64_t size_ = 0;
  uint64_t read_ = 0;  // bytes read from fd_
};

}  // namespace ingest
}  // namespace uriscan

#endif  // URISCAN_SRC_INGEST_LINE_READER_H_
