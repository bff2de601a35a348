// SPDX-License-Identifier: MIT
// gzip and zstd input, told apart by magic bytes and decoded on a thread of
// its own while the line reader hands the decoded bytes to the scanners.
#ifndef URISCAN_SRC_INGEST_DECOMPRESS_H_
#define URISCAN_SRC_INGEST_DECOMPRESS_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace uriscan {
namespace ingest {

enum class Compression { kNone, kGzip, kZstd };

// The compression of a stream from its first bytes: gzip's ID1 ID2
// (1f 8b, RFC 1952 sec. 2.3.1), zstd's frame magic (28 b5 2f fd, RFC 8878
// sec. 3.1.1). Fewer than 4 bytes may be passed: a prefix never matches.
Compression Sniff(std::string_view head);

// The compressed bytes: `head` (bytes already read while sniffing), then
// either the rest of `mapped` (a whole mapped file, kept alive by `keep`) or
// what read(fd) gives until its end.
struct CompressedSource {
  std::string head;
  std::string_view mapped;
  std::shared_ptr<const void> keep;
  int fd = -1;
};

// Decodes a gzip (every member) or zstd (every frame) stream on its own
// thread into a few blocks, which Read() hands out in order. Memory stays
// bounded by those blocks. A truncated or corrupt stream ends the output at
// the damage; error() then says what and where: "gzip: <what> at compressed
// byte N (member M, from compressed byte S)" (every count from 1). A
// member's CRC-32 (a frame's checksum) is checked at its end, so the bytes
// decoded before a failed check, damaged ones included, are handed out
// already: the member named is where the damage lies.
class Decoder {
 public:
  Decoder(Compression compression, CompressedSource source);
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Copies up to `n` decoded bytes to `dst`, waiting for them if need be;
  // 0 at the end of the stream (or at the damage: see error()).
  size_t Read(char* dst, size_t n);
  // Empty unless the stream was damaged or could not be read; valid once
  // Read() returned 0.
  const std::string& error() const { return error_; }
  // The compressed bytes handed to the codec so far (for the progress line;
  // read while the decoding thread moves it on).
  uint64_t consumed() const { return consumed_.load(std::memory_order_relaxed); }

 private:
  void Run();
  void RunGzip();
  void RunZstd();
  // The next compressed bytes, or an empty view at the end of the input.
  std::string_view NextInput();
  // Hands a full (or last) block to the reader; false when stopping.
  bool Publish(std::string* block);
  std::string TakeFreeBlock();
  void Finish(std::string error);

  Compression compression_;
  CompressedSource source_;
  bool head_done_ = false, mapped_done_ = false;
  size_t mapped_pos_ = 0;
  std::vector<char> in_buf_;
  std::atomic<uint64_t> consumed_{0};  // compressed bytes given to the codec
  std::string read_error_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> full_, free_;
  bool done_ = false, stop_ = false;
  std::string error_;  // set before done_
  std::string current_;  // the block being read (reader side only)
  size_t current_pos_ = 0;
  std::thread thread_;
};

}  // namespace ingest
}  // namespace uriscan

#endif  // URISCAN_SRC_INGEST_DECOMPRESS_H_
