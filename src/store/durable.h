// SPDX-License-Identifier: MIT
// Helpers for files that must survive a crash (the seen-set's state), and
// the test hooks that simulate a full disk or a kill at a chosen step.
#ifndef URISCAN_SRC_STORE_DURABLE_H_
#define URISCAN_SRC_STORE_DURABLE_H_

#include <cstddef>
#include <string>
#include <vector>

namespace uriscan {
namespace durable {

// True (with errno = ENOSPC) when the test hook URISCAN_TEST_ENOSPC_AFTER=N
// is set and this process has already written N bytes of state: a full disk
// on demand. Counts `bytes` otherwise. Without the variable, always false.
bool InjectedNoSpace(size_t bytes);

// When URISCAN_TEST_CRASH_AT names `step`, the process kills itself with
// SIGKILL there, as a crash or an out-of-memory kill would.
void CrashPoint(const char* step);

// The files of a state are opened with these only, so that a symbolic link
// planted in its directory is never followed (its target never written or
// read): OpenNew() creates `name` and fails when anything (a link included)
// is there; OpenExisting() opens a file that is not a link. `name` is
// relative to the directory `dir_fd` (openat(2); AT_FDCWD for a path), so a
// state opened once is worked on through its descriptor whatever its name
// comes to mean meanwhile. -1 and errno on failure, as open(2).
int OpenNew(int dir_fd, const std::string& name);
// Anything but a regular file there (a directory: EISDIR; a FIFO, socket
// or device: EINVAL) is refused without waiting on it.
int OpenExisting(int dir_fd, const std::string& name, int flags);
// strerror() of an errno left by these functions, "not a regular file" for
// OpenExisting()'s EINVAL.
std::string ErrorText(int error);

// Renames `from` (in the directory from_fd) to `to` (in to_fd), never over
// an existing file (EEXIST): renameat2's RENAME_NOREPLACE, or where the file
// system lacks it, a link to the new name and the old one removed. 0, or -1
// and errno.
int RenameNoReplace(int from_fd, const std::string& from, int to_fd,
                    const std::string& to);

// fsync of the directory `dir_fd` (`shown` names it in the error), so a
// rename inside it is durable.
bool SyncDirectory(int dir_fd, const std::string& shown, std::string* error);
// The same for a directory known by its path (a command's output file's).
bool SyncDirectory(const std::string& dir, std::string* error);

// Writes `bytes` to `name` + ".tmp" in the directory `dir_fd`, fsyncs it and
// renames it to `name` there (`shown` is the directory's path, for errors).
// The directory is not synced here (SyncDirectory). With `sync` false the
// file is not synced either: the caller syncs it before anything depends
// on it (SyncAll).
bool ReplaceFile(int dir_fd, const std::string& shown, const std::string& name,
                 const std::string& bytes, std::string* error,
                 bool sync = true);

// fsync of each of `names` (files or directories, relative to `dir_fd`),
// several at once: a group of small files and their directories is synced
// in about the time of one, where one after another costs each its own
// journal commit. False with *error naming the first that failed.
bool SyncAll(int dir_fd, const std::string& shown,
             const std::vector<std::string>& names, std::string* error);

}  // namespace durable
}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_DURABLE_H_
