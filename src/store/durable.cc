// SPDX-License-Identifier: MIT
// Crash-safe file helpers and test hooks (see durable.h).
#include "src/store/durable.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace uriscan {
namespace durable {

bool InjectedNoSpace(size_t bytes) {
  static const char* limit_text = std::getenv("URISCAN_TEST_ENOSPC_AFTER");
  static const unsigned long long limit =
      limit_text ? std::strtoull(limit_text, nullptr, 10) : 0;
  // Shards write from several threads at once.
  static std::atomic<unsigned long long> written{0};
  if (!limit_text) return false;
  unsigned long long before = written.load();
  do {
    if (before + bytes > limit) {
      errno = ENOSPC;
      return true;
    }
  } while (!written.compare_exchange_weak(before, before + bytes));
  return false;
}

void CrashPoint(const char* step) {
  static const char* at = std::getenv("URISCAN_TEST_CRASH_AT");
  if (at && std::strcmp(at, step) == 0) raise(SIGKILL);
}

int OpenNew(int dir_fd, const std::string& name) {
  return openat(dir_fd, name.c_str(),
              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int OpenExisting(int dir_fd, const std::string& name, int flags) {
  // O_NONBLOCK: a FIFO planted in the place opens at once (and is then
  // refused) instead of waiting for a writer forever.
  const int fd = openat(dir_fd, name.c_str(),
                        flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
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

int RenameNoReplace(int from_fd, const std::string& from, int to_fd,
                    const std::string& to) {
  const int done = renameat2(from_fd, from.c_str(), to_fd, to.c_str(),
                             RENAME_NOREPLACE);
  if (done == 0 || (errno != EINVAL && errno != ENOSYS)) return done;
  if (linkat(from_fd, from.c_str(), to_fd, to.c_str(), 0) != 0) return -1;
  return unlinkat(from_fd, from.c_str(), 0);
}

bool SyncDirectory(int dir_fd, const std::string& shown, std::string* error) {
  if (fsync(dir_fd) != 0) {
    *error = "cannot sync directory " + shown + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool SyncDirectory(const std::string& dir, std::string* error) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot sync directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  const bool synced = SyncDirectory(fd, dir, error);
  close(fd);
  return synced;
}

bool ReplaceFile(int dir_fd, const std::string& shown, const std::string& name,
                 const std::string& bytes, std::string* error, bool sync) {
  const std::string tmp = name + ".tmp";
  const std::string shown_tmp = shown + "/" + tmp;
  unlinkat(dir_fd, tmp.c_str(), 0);  // a leftover (or a planted link)
  const int fd = OpenNew(dir_fd, tmp);
  if (fd < 0) {
    *error = "cannot create " + shown_tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = bytes.size() - done;
    const ssize_t w =
        InjectedNoSpace(n) ? -1 : write(fd, bytes.data() + done, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *error = "cannot write " + shown_tmp + ": " + std::strerror(errno);
      close(fd);
      unlinkat(dir_fd, tmp.c_str(), 0);
      return false;
    }
    done += static_cast<size_t>(w);
  }
  if (sync && fsync(fd) != 0) {
    *error = "cannot sync " + shown_tmp + ": " + std::strerror(errno);
    close(fd);
    unlinkat(dir_fd, tmp.c_str(), 0);
    return false;
  }
  close(fd);
  if (renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    *error = "cannot rename " + shown_tmp + ": " + std::strerror(errno);
    unlinkat(dir_fd, tmp.c_str(), 0);
    return false;
  }
  return true;
}

bool SyncAll(int dir_fd, const std::string& shown,
             const std::vector<std::string>& names, std::string* error) {
  // A journal commits the syncs that wait on it together, so the group
  // costs about one commit when its syncs are issued at once.
  constexpr size_t kAtOnce = 64;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::string first_error;
  size_t failed_at = names.size();
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < names.size();) {
      const int fd = openat(dir_fd, names[i].c_str(),
                            O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      const int code = fd < 0 ? errno : fsync(fd) != 0 ? errno : 0;
      if (fd >= 0) close(fd);
      if (code == 0) continue;
      std::lock_guard<std::mutex> lock(mu);
      if (i < failed_at) {
        failed_at = i;
        first_error = "cannot sync " + shown + "/" + names[i] + ": " +
                      std::strerror(code);
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t threads = std::min(kAtOnce, names.size());
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failed_at == names.size()) return true;
  *error = first_error;
  return false;
}

}  // namespace durable
}  // namespace uriscan
