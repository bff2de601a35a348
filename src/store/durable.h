// SPDX-License-Identifier: MIT
// Helpers for files that must survive a crash (the seen-set's state), and
// the test hooks that simulate a full disk or a kill at a chosen step.
#ifndef URISCAN_SRC_STORE_DURABLE_H_
#define URISCAN_SRC_STORE_DURABLE_H_

#include <cstddef>
#include <string>

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
// read): OpenNew() creates `path` and fails when anything (a link included)
// is there; OpenExisting() opens a file that is not a link. -1 and errno on
// failure, as open(2).
int OpenNew(const std::string& path);
// Anything but a regular file there (a directory: EISDIR; a FIFO, socket
// or device: EINVAL) is refused without waiting on it.
int OpenExisting(const std::string& path, int flags);
// strerror() of an errno left by these functions, "not a regular file" for
// OpenExisting()'s EINVAL.
std::string ErrorText(int error);

// fsync of a directory, so a rename inside it is durable.
bool SyncDirectory(const std::string& dir, std::string* error);

// Writes `bytes` to `path` + ".tmp", fsyncs it and renames it to `path`.
// The directory is not synced here (SyncDirectory).
bool ReplaceFile(const std::string& path, const std::string& bytes,
                 std::string* error);

}  // namespace durable
}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_DURABLE_H_
