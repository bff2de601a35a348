// SPDX-License-Identifier: MIT
// A command's output committed as a whole file (output_file.h).
#include "src/store/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/store/durable.h"

namespace uriscan {

OutputFile::~OutputFile() {
  if (fd_ >= 0) close(fd_);
  if (open_ && !keep_) unlink(tmp_.c_str());
}

bool OutputFile::Resolve(const std::string& file, std::string* error) {
  given_ = file;
  const size_t slash = file.rfind('/');
  const std::string name =
      slash == std::string::npos ? file : file.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0              ? "/"
                                                    : file.substr(0, slash);
  if (name.empty() || name == "." || name == "..") {
    *error = "--output " + file + ": names a directory, not a file";
    return false;
  }
  char real[PATH_MAX];
  if (!realpath(dir.c_str(), real)) {
    *error = "--output " + file + ": no directory " + dir + ": " +
             std::strerror(errno);
    return false;
  }
  name_ = name;
  parent_ = real;
  if (parent_ != "/") parent_ += '/';
  final_ = parent_ + name;
  // The path goes into a state's MANIFEST, a line a field.
  for (const char c : final_) {
    if (static_cast<unsigned char>(c) < ' ' || c == '\x7f') {
      *error = "--output " + file + ": its path holds a control byte";
      return false;
    }
  }
  // The process and the time in nanoseconds: no two runs share it.
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  char nonce[48];
  std::snprintf(nonce, sizeof nonce, "%lx-%llx",
                static_cast<unsigned long>(getpid()),
                static_cast<unsigned long long>(now.tv_sec) * 1000000000ull +
                    static_cast<unsigned long long>(now.tv_nsec));
  tmp_ = parent_ + "." + name + ".uriscan-" + nonce + ".tmp";
  return true;
}

bool OutputFile::Exists() const {
  struct stat st;
  return lstat(final_.c_str(), &st) == 0;
}

bool OutputFile::Open(std::string* error, bool as_stdout) {
  // Killed runs' temporary files for this FILE (names only: unlink never
  // follows a link). A committed one was put in place before this, by the
  // state's update (StateStore::CompleteOutput).
  const std::string prefix = "." + name_ + ".uriscan-";
  if (DIR* d = opendir(parent_.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string entry = e->d_name;
      if (entry.size() > prefix.size() + 4 &&
          entry.compare(0, prefix.size(), prefix) == 0 &&
          entry.compare(entry.size() - 4, 4, ".tmp") == 0)
        unlink((parent_ + entry).c_str());
    }
    closedir(d);
  }
  const int fd = durable::OpenNew(AT_FDCWD, tmp_);
  if (fd >= 0 && !as_stdout) {
    fd_ = fd;
    open_ = true;
    return true;
  }
  if (fd < 0 || std::fflush(stdout) != 0 ||
      (fd != STDOUT_FILENO && dup2(fd, STDOUT_FILENO) < 0)) {
    *error = "cannot create " + tmp_ + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  if (fd != STDOUT_FILENO) close(fd);  // (fd 1 was closed: it is the file)
  open_ = true;
  return true;
}


bool OutputFile::Write(const std::string& bytes, std::string* error) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = durable::InjectedNoSpace(bytes.size() - done)
                          ? -1
                          : write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "cannot write " + tmp_ + ": " + std::strerror(errno);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

bool OutputFile::Sync(std::string* error) {
  if (fd_ >= 0 ? fsync(fd_) != 0
               : std::fflush(stdout) != 0 || fsync(STDOUT_FILENO) != 0) {
    *error = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  // Its name too must be durable before a MANIFEST names it.
  return durable::SyncDirectory(parent_, error);
}

bool OutputFile::Publish(std::string* error, bool replace) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  durable::CrashPoint("output-unnamed");
  if ((replace ? std::rename(tmp_.c_str(), final_.c_str())
               : durable::RenameNoReplace(AT_FDCWD, tmp_, AT_FDCWD, final_)) !=
      0) {
    *error = "cannot rename " + tmp_ + " to " + final_ + ": " +
             std::strerror(errno);
    return false;
  }
  keep_ = true;  // it is FILE now
  if (!durable::SyncDirectory(parent_, error)) return false;
  durable::CrashPoint("output-named");
  return true;
}

}  // namespace uriscan
