// SPDX-License-Identifier: MIT
// A regular file mapped read-only, for a process that guards its mappings
// against truncation: a file cut short under a mapping (logrotate's
// copytruncate) takes its pages away, and a read of them raises SIGBUS.
// The uriscan command installs the guard (its own process, so its own
// signal handler); the library never does, and reads files with read(2).
#ifndef URISCAN_SRC_INGEST_MAPPED_FILE_H_
#define URISCAN_SRC_INGEST_MAPPED_FILE_H_

#include <atomic>
#include <cstddef>
#include <memory>

namespace uriscan {
namespace ingest {

class MappedFile {
 public:
  // Maps `size` bytes of the regular file `fd`; null when the guard is not
  // installed or the map fails (the file is then read instead).
  static std::shared_ptr<MappedFile> Map(int fd, size_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // True once a read past the file's end (it shrank) touched the mapping:
  // from that page on it reads as zero bytes, which must never be output.
  bool faulted() const { return faulted_.load(std::memory_order_acquire); }
  // Gives the pages of [p, p + n) back (they stay in the page cache): the
  // memory of a run follows the runs in flight, not the file.
  void Release(const char* p, size_t n) const;

 private:
  MappedFile(const char* data, size_t size, int slot)
      : data_(data), size_(size), slot_(slot) {}
  const char* data_;
  size_t size_;
  int slot_;
  std::atomic<bool> faulted_{false};
  friend void OnBusError(int, void*, void*);
};

// Installs the SIGBUS handler that turns a read of a mapped file's lost
// pages into zero bytes and MappedFile::faulted() (a fault anywhere else
// ends the process, as without it). For a program's main(), once.
void GuardMappedFiles();

}  // namespace ingest
}  // namespace uriscan

#endif  // URISCAN_SRC_INGEST_MAPPED_FILE_H_
