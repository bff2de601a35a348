// SPDX-License-Identifier: MIT
// The key runs of the release before indexed runs (format 1), read only to
// convert a state (StateStore::Upgrade, `uriscan state DIR --upgrade`).
#ifndef URISCAN_SRC_STORE_KEY_RUNS_V1_H_
#define URISCAN_SRC_STORE_KEY_RUNS_V1_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace uriscan {

// The format-1 run of the release before (one stream of blocks of 4,096 gaps and a
// whole-file checksum, no index), read only to convert a state
// (`uriscan state DIR --upgrade`): the header is magic, version 1, 4 zero
// bytes, profile tag, key count, payload bytes and an XXH3 checksum of the
// payload then bytes 0..39 (48 bytes); the payload is the first key raw,
// then per block of 4,096 gaps a 6-bit Rice parameter and the codes.
class KeyRunReaderV1 {
 public:
  KeyRunReaderV1();
  ~KeyRunReaderV1();
  KeyRunReaderV1(const KeyRunReaderV1&) = delete;
  KeyRunReaderV1& operator=(const KeyRunReaderV1&) = delete;

  bool Open(int dir_fd, const std::string& name, const std::string& path,
            uint64_t profile_tag, size_t buffer_bytes);
  bool Next(uint64_t* key) {
    if (pos_ < keys_.size()) {
      *key = keys_[pos_++];
      return true;
    }
    return NextBlock(key);
  }
  uint64_t keys() const { return keys_total_; }
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }

 private:
  static constexpr size_t kBlock = 4096;
  bool NextBlock(uint64_t* key);
  bool DecodeBlock();
  bool Refill(size_t need);
  uint64_t Peek() const;
  uint64_t Get(int width);
  uint64_t GetWide(int width);
  bool Damaged(const char* what);
  bool CheckEnd();
  bool Finish();

  std::FILE* f_ = nullptr;
  std::string path_, error_;
  uint64_t keys_total_ = 0, payload_bytes_ = 0, checksum_ = 0;
  unsigned char head_bytes_[40] = {};
  std::vector<unsigned char> buf_;
  size_t size_ = 0;
  uint64_t bit_ = 0, consumed_ = 0, read_ = 0, decoded_ = 0, last_ = 0;
  std::vector<uint64_t> keys_;
  size_t pos_ = 0;
  bool done_ = false;
  struct Hash;
  std::unique_ptr<Hash> hash_;
};

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_KEY_RUNS_V1_H_
