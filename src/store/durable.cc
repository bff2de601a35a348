// SPDX-License-Identifier: MIT
// Crash-safe file helpers and test hooks (see durable.h).
#include "src/store/durable.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace uriscan {
namespace durable {

bool InjectedNoSpace(size_t bytes) {
  static const char* limit_text = std::getenv("URISCAN_TEST_ENOSPC_AFTER");
  static const unsigned long long limit =
      limit_text ? std::strtoull(limit_text, nullptr, 10) : 0;
  static unsigned long long written = 0;
  if (!limit_text) return false;
  if (written + bytes > limit) {
    errno = ENOSPC;
    return true;
  }
  written += bytes;
  return false;
}

void CrashPoint(const char* step) {
  static const char* at = std::getenv("URISCAN_TEST_CRASH_AT");
  if (at && std::strcmp(at, step) == 0) raise(SIGKILL);
}

int OpenNew(const std::string& path) {
  return open(path.c_str(),
              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int OpenExisting(const std::string& path, int flags) {
  // O_NONBLOCK: a FIFO planted in the place opens at once (and is then
  // refused) instead of waiting for a writer forever.
  const int fd = open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fd;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int error = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

std::string ErrorText(int error) {
  // open() gives EINVAL only for flags, which are fixed here: it is
  // OpenExisting()'s answer for a FIFO, socket or device.
  if (error == EINVAL) return "not a regular file";
  return std::strerror(error);
}

bool SyncDirectory(const std::string& dir, std::string* error) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0 || fsync(fd) != 0) {
    *error = "cannot sync directory " + dir + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  close(fd);
  return true;
}

bool ReplaceFile(const std::string& path, const std::string& bytes,
                 std::string* error) {
  const std::string tmp = path + ".tmp";
  unlink(tmp.c_str());  // a leftover (or a planted link: only it goes)
  const int fd = OpenNew(tmp);
  if (fd < 0) {
    *error = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = bytes.size() - done;
    const ssize_t w =
        InjectedNoSpace(n) ? -1 : write(fd, bytes.data() + done, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *error = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(w);
  }
  if (fsync(fd) != 0) {
    *error = "cannot sync " + tmp + ": " + std::strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace durable
}  // namespace uriscan
