// SPDX-License-Identifier: MIT
// A command's output committed as a whole file (output_file.h).
#include "src/cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/store/durable.h"

namespace uriscan {
namespace cli {

OutputFile::~OutputFile() {
  if (open_ && !published_) unlink(tmp_.c_str());
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
  std::string parent = real;
  if (parent != "/") parent += '/';
  final_ = parent + name;
  tmp_ = parent + "." + name + ".uriscan-tmp";
  return true;
}

bool OutputFile::Exists() const {
  struct stat st;
  return lstat(final_.c_str(), &st) == 0;
}

bool OutputFile::Open(std::string* error) {
  unlink(tmp_.c_str());  // a killed run's (or a planted link: only it goes)
  const int fd = durable::OpenNew(AT_FDCWD, tmp_);
  if (fd < 0 || std::fflush(stdout) != 0 || dup2(fd, STDOUT_FILENO) < 0) {
    *error = "cannot create " + tmp_ + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  close(fd);
  open_ = true;
  return true;
}

bool OutputFile::Sync(std::string* error) {
  if (std::fflush(stdout) != 0 || fsync(STDOUT_FILENO) != 0) {
    *error = "cannot write " + tmp_ + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool OutputFile::Publish(std::string* error) {
  durable::CrashPoint("output-unnamed");
  if (renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, final_.c_str(),
                RENAME_NOREPLACE) != 0) {
    *error = "cannot rename " + tmp_ + " to " + final_ + ": " +
             std::strerror(errno);
    return false;
  }
  published_ = true;
  const std::string parent = final_.substr(0, final_.rfind('/') + 1);
  const int fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) {
    *error = "cannot sync directory " + parent + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  close(fd);
  durable::CrashPoint("output-named");
  return true;
}

}  // namespace cli
}  // namespace uriscan
