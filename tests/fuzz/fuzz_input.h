// SPDX-License-Identifier: MIT
// What the harnesses that read the same bytes two ways share: the bytes
// written through a pipe a few at a time, and a decoder's message without
// where it noticed damage.
#ifndef URISCAN_TESTS_FUZZ_FUZZ_INPUT_H_
#define URISCAN_TESTS_FUZZ_FUZZ_INPUT_H_

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

namespace uriscan_fuzz {

// `text` written into a pipe in writes of `piece` bytes on a thread of its
// own; path() names the read end. Close() the read end when done reading
// (a reader that stopped early ends the writer), then the writer is joined.
class PipeInput {
 public:
  PipeInput(std::string_view text, size_t piece) {
    // A reader that stopped early fails the writer's write (EPIPE), not
    // the process.
    std::signal(SIGPIPE, SIG_IGN);
    if (::pipe(fds_) != 0) std::abort();
    writer_ = std::thread([this, text, piece] {
      for (size_t pos = 0; pos < text.size(); pos += piece) {
        const size_t n = std::min(piece, text.size() - pos);
        if (::write(fds_[1], text.data() + pos, n) != static_cast<ssize_t>(n))
          break;
      }
      ::close(fds_[1]);
    });
  }
  ~PipeInput() { Close(); }
  PipeInput(const PipeInput&) = delete;
  PipeInput& operator=(const PipeInput&) = delete;
  std::string path() const { return "/dev/fd/" + std::to_string(fds_[0]); }
  void Close() {
    if (fds_[0] < 0) return;
    ::close(fds_[0]);
    fds_[0] = -1;
    writer_.join();
  }

 private:
  int fds_[2] = {-1, -1};
  std::thread writer_;
};

// `s` with the number after " at compressed byte " left out: where a
// damaged gzip or zstd stream stops is where its decoder noticed, which
// depends on how much input it was given at once (the member or frame
// named, and every row, are the same).
inline std::string WithoutDamageOffset(std::string s) {
  static const std::string kAt = " at compressed byte ";
  const size_t at = s.find(kAt);
  if (at == std::string::npos) return s;
  const size_t end = s.find_first_not_of("0123456789", at + kAt.size());
  return s.erase(at + kAt.size(), end - at - kAt.size());
}

}  // namespace uriscan_fuzz

#endif  // URISCAN_TESTS_FUZZ_FUZZ_INPUT_H_
