// SPDX-License-Identifier: MIT
// Streams newline-separated lines from a file or stdin in bounded memory.
#ifndef URISCAN_SRC_CLI_INPUT_H_
#define URISCAN_SRC_CLI_INPUT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace uriscan {
namespace cli {

// Reads a stream in chunks and hands out batches of whole lines. Memory stays
// below about 2 * chunk + max_line bytes whatever the input size. A line
// longer than max_line is not kept: it comes out alone as kTooLongLine (its
// bytes are skipped up to the next "\n"), so line numbering never shifts.
class LineReader {
 public:
  enum class Status { kLines, kTooLongLine, kEnd, kError };

  LineReader(size_t chunk_bytes, size_t max_line_bytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Opens `path`, or stdin for "-". On failure returns false with a message.
  bool Open(const std::string& path, std::string* error);
  // The next run of whole lines, raw, "\n"s included (the last line of the
  // stream may lack one) into `*lines` (kLines); one over-long line
  // (kTooLongLine, `*lines` empty); the end (kEnd); or an I/O error (kError,
  // message in error()).
  Status Next(std::string* lines);
  const std::string& error() const { return error_; }
  // Bytes consumed so far from this stream.
  size_t bytes_read() const { return bytes_read_; }

 private:
  bool Fill();  // reads more; false on EOF or error
  void Close();

  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  bool skipping_ = false;  // discarding the rest of an over-long line
  size_t chunk_;
  size_t max_line_;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;
  size_t bytes_read_ = 0;
  std::string error_;
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_INPUT_H_
