// SPDX-License-Identifier: MIT
// StateStore: the manifest, the lock, lookups, commit and compaction.
#include "src/store/state_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "src/store/durable.h"
#include "src/store/key_runs_v1.h"
#include "src/store/kway_merge.h"

namespace uriscan {
namespace {

constexpr char kManifestHead[] = "uriscan-state 2";
constexpr char kManifestHeadV1[] = "uriscan-state 1";

// "shard-NNNN", NNNN below `shards`.
bool IsShardName(const std::string& name, uint32_t shards) {
  if (name.size() != 10 || name.compare(0, 6, "shard-") != 0 ||
      !std::all_of(name.begin() + 6, name.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  return std::strtoul(name.c_str() + 6, nullptr, 10) < shards;
}

std::string ShardDir(uint32_t i) {
  char text[24];
  std::snprintf(text, sizeof text, "shard-%04u", i % 10000);
  return text;
}

// A state's id: 64 random bits, as 16 hex digits.
std::string NewId() {
  std::random_device random;
  const uint64_t id = (uint64_t{random()} << 32) ^ random();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(id));
  return text;
}

bool IsHex16(const std::string& text) {
  return text.size() == 16 &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool IsRunName(const std::string& name) {
  if (name.size() < 10 || name.compare(0, 4, "run-") != 0 ||
      name.compare(name.size() - 5, 5, ".keys") != 0)
    return false;
  return std::all_of(name.begin() + 4, name.end() - 5,
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::string Hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(v));
  return text;
}

bool ParseU64(const std::string& text, int base, uint64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoull(text.c_str(), &end, base);
  return errno == 0 && *end == '\0' && text[0] != '-' && text[0] != '+';
}

std::vector<std::string> ListDir(int dir_fd) {
  std::vector<std::string> names;
  const int fd = dup(dir_fd);  // closedir() closes the one it was given
  DIR* d = fd < 0 ? nullptr : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return names;
  }
  rewinddir(d);  // the descriptor's offset is shared with every dup
  while (const dirent* e = readdir(d)) names.emplace_back(e->d_name);
  closedir(d);
  return names;
}


template <class Reader>
struct RunSource {  // a key-run reader as a KWayMerge source
  Reader* reader;
  bool Next(uint64_t* key) { return reader->Next(key); }
};

}  // namespace

std::string StateStore::Identity::Describe() const {
  std::string s = "'" + profile + "' (version " + std::to_string(version);
  if (!tracking.empty()) s += ", tracking " + tracking;
  return s + ")";
}

StateStore::StateStore() = default;

StateStore::~StateStore() {
  shards_.clear();  // each abandons or keeps its own files first
  readers_.clear();
  if (writer_) {
    writer_.reset();
    if (dir_fd_ >= 0) unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
  }
  if (update_ && !published_) Abandon();
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
  if (dir_fd_ >= 0) close(dir_fd_);
}

// Names only are removed (unlink, rmdir): no link is followed, nothing
// outside the directory is touched, and a directory is removed only when
// this update made it and it is empty again.
void StateStore::Abandon() {
  std::string ignored;
  if (loaded_ && (made_dir_ || made_next_ || !made_runs_.empty()))
    (void)Enter(&ignored);
  if (dir_fd_ < 0) return;
  for (const std::string& name : made_runs_)
    unlinkat(dir_fd_, name.c_str(), 0);
  if (made_manifest_) unlinkat(dir_fd_, "MANIFEST", 0);
  if (made_next_) unlinkat(dir_fd_, "MANIFEST.next", 0);
  if (loaded_) {  // a shard's directory, made by this run: under the top's
    Leave();
    if (made_dir_)
      unlinkat(top_->dir_fd_, ShardDir(place_).c_str(), AT_REMOVEDIR);
    return;
  }
  // Still under the lock: a run that opened this LOCK meanwhile finds it
  // unlinked once it gets the lock, and takes the new one instead (Lock).
  if (made_lock_) unlinkat(dir_fd_, "LOCK", 0);
  // The one directory whose name could now mean another: removed only
  // when the name still leads to the directory this update made.
  struct stat by_name, by_fd;
  if (made_dir_ && lstat(dir_.c_str(), &by_name) == 0 &&
      fstat(dir_fd_, &by_fd) == 0 && by_name.st_dev == by_fd.st_dev &&
      by_name.st_ino == by_fd.st_ino)
    rmdir(dir_.c_str());
}

uint64_t StateStore::keys() const {
  if (!manifest_read_) return record_.keys;
  uint64_t n = 0;
  for (const auto& shard : shards_) n += shard->keys();
  for (const Run& r : runs_) n += r.keys;
  return n;
}

uint64_t StateStore::written_bytes() const {
  uint64_t n = written_bytes_;
  for (const auto& shard : shards_) n += shard->written_bytes();
  return n;
}

uint64_t StateStore::rewritten_bytes() const {
  uint64_t n = rewritten_bytes_;
  for (const auto& shard : shards_) n += shard->rewritten_bytes();
  return n;
}

uint64_t StateStore::run_bytes() const {
  uint64_t n = 0;
  for (const auto& shard : shards_) n += shard->run_bytes() + shard->manifest_bytes();
  for (const Run& r : runs_) n += r.bytes;
  return n;
}

std::string StateStore::RunName(uint64_t number) const {
  char text[32];
  std::snprintf(text, sizeof text, "run-%06llu.keys",
                static_cast<unsigned long long>(number));
  return text;
}

bool StateStore::Damaged(const std::string& what, std::string* error) const {
  *error = "state " + dir_ + " is damaged: " + what +
           " (it is left as it is; restore it or start another directory)";
  return false;
}

bool StateStore::Lock(bool exclusive, std::string* error) {
  const std::string path = dir_ + "/LOCK";
  if (adopted_lock_ >= 0) {  // held by the SeenState that opens this one
    lock_fd_ = fcntl(adopted_lock_, F_DUPFD_CLOEXEC, 0);
    if (lock_fd_ < 0) {
      *error = "cannot lock " + path + ": " + std::strerror(errno);
      return false;
    }
    return true;
  }
  // A LOCK is removed only by the update that made it, while it holds it
  // (Abandon): a lock got on a removed LOCK is let go, and the new one (or
  // none) opened again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Created as a new file or opened as one that is no link (O_NOFOLLOW):
    // a link planted as LOCK, dangling or not, is refused.
    bool made = false;
    lock_fd_ =
        durable::OpenExisting(dir_fd_, "LOCK", exclusive ? O_RDWR : O_RDONLY);
    if (lock_fd_ < 0 && errno == ENOENT && exclusive) {
      lock_fd_ = durable::OpenNew(dir_fd_, "LOCK");
      made = lock_fd_ >= 0;
      if (lock_fd_ < 0 && errno == EEXIST)  // made meanwhile, or a link
        lock_fd_ = durable::OpenExisting(dir_fd_, "LOCK", O_RDWR);
    }
    if (lock_fd_ < 0) {
      if (!exclusive && errno == ENOENT) return true;  // a copied state
      *error = "cannot open " + path + ": " + durable::ErrorText(errno);
      return false;
    }
    struct stat st;
    const int mode = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    int locked = flock(lock_fd_, mode);
    int locked_errno = errno;
    // set_lock_wait(): the other run is given that long to finish.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(lock_wait_);
    while (locked != 0 && locked_errno == EWOULDBLOCK && lock_wait_ > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      locked = flock(lock_fd_, mode);
      locked_errno = errno;
    }
    if (locked != 0 || fstat(lock_fd_, &st) != 0) {
      if (locked == 0) locked_errno = errno;
      char waited[64] = "";
      if (lock_wait_ > 0)
        std::snprintf(waited, sizeof waited, " (waited %g s)", lock_wait_);
      *error = locked_errno == EWOULDBLOCK
                   ? "state " + dir_ +
                         " is in use: another uriscan run holds its lock (" +
                         path + ")" + waited + "; try again when it has finished"
                   : "cannot lock " + path + ": " +
                         std::strerror(locked_errno);
      return false;
    }
    if (st.st_nlink > 0) {
      made_lock_ = made && exclusive;
      return true;
    }
    close(lock_fd_);
    lock_fd_ = -1;
  }
  *error = "cannot lock " + path + ": it is removed each time it is taken";
  return false;
}

// Anyone else who may write in the directory could plant files or links
// in it between two steps of an update: such a directory is refused.
bool StateStore::CheckOwnership(std::string* error) const {
  struct stat st;
  if (fstat(dir_fd_, &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = "state directory " + dir_ + " is not a directory";
    return false;
  }
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o",
                  static_cast<unsigned>(st.st_mode & 07777));
    *error = "state directory " + dir_ + " may be written by " +
             (st.st_uid != geteuid() ? "its owner, another user"
                                     : "other users") +
             " (mode " + mode + "), who could plant files or links in it; "
             "use a directory only you may write (chmod go-w)";
    return false;
  }
  return true;
}

bool StateStore::ReadManifest(std::string* error) {
  return ReadManifestFile("MANIFEST", error);
}

bool StateStore::ReadManifestFile(const char* file, std::string* error) {
  const std::string path = dir_ + "/" + file;
  runs_.clear();
  committed_.clear();
  // A shard's place comes from its MANIFEST; a new shard keeps the one it
  // was opened for.
  const uint32_t index = shard_index_, of = shard_of_;
  shard_index_ = shard_of_ = 0;
  const int fd = durable::OpenExisting(dir_fd_, file, O_RDONLY);
  if (fd < 0) {
    shard_index_ = index;
    shard_of_ = of;
    if (errno != ENOENT) {
      *error = "cannot read " + path + ": " + durable::ErrorText(errno);
      return false;
    }
    // A shard's MANIFEST.next may name its runs (CheckAgainstTop()), and
    // a shard of a state never committed holds only leftovers.
    const bool shard = top_ != nullptr;
    for (const std::string& name : ListDir(dir_fd_)) {
      if (name.rfind("shard-", 0) == 0 && !shard)
        return Damaged("it holds shards (" + name + ") but no MANIFEST",
                       error);
      if (IsRunName(name) && !shard)
        return Damaged("it holds key runs (" + name + ") but no MANIFEST",
                       error);
    }
    exists_ = false;
    return true;
  }
  // What a shard's record says of it (StatRecord()).
  manifest_stat_valid_ = fstat(fd, &manifest_stat_) == 0;
  std::string text;
  char block[4096];
  ssize_t got;
  while ((got = read(fd, block, sizeof block)) > 0 ||
         (got < 0 && errno == EINTR)) {
    if (got > 0) text.append(block, static_cast<size_t>(got));
    if (text.size() > (size_t{64} << 20)) break;  // no manifest is as long
  }
  const int read_errno = errno;
  close(fd);
  if (got < 0) {
    *error = "cannot read " + path + ": " + std::strerror(read_errno);
    return false;
  }
  manifest_bytes_ = text.size();
  const size_t at = text.rfind("checksum ");
  if (at == std::string::npos || (at > 0 && text[at - 1] != '\n'))
    return Damaged("MANIFEST has no checksum line", error);
  // The checksum line exactly as written (16 lower-case hex digits): any
  // other spelling of the same number is damage too.
  if (text.size() != at + 9 + 16 + 1 || text.back() != '\n' ||
      text.compare(at + 9, 16, Hex(XXH3_64bits(text.data(), at))) != 0)
    return Damaged("MANIFEST has a bad checksum (truncated or altered)",
                   error);
  std::istringstream lines(text.substr(0, at));
  std::string line;
  if (!std::getline(lines, line) ||
      (line != kManifestHead && line != kManifestHeadV1))
    return Damaged("MANIFEST is of an unknown format", error);
  format_ = line == kManifestHead ? 2 : 1;
  int seen = 0;
  records_.clear();
  while (std::getline(lines, line)) {
    const size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    uint64_t v = 0;
    if (key == "profile") {
      identity_.profile = value;
      seen |= 1;
    } else if (key == "profile-version" && ParseU64(value, 10, &v)) {
      identity_.version = static_cast<uint32_t>(v);
      seen |= 2;
    } else if (key == "tracking") {
      identity_.tracking = value == "-" ? "" : value;
      seen |= 4;
    } else if (key == "profile-tag" && ParseU64(value, 16, &v)) {
      identity_.tag = v;
      seen |= 8;
    } else if (key == "next" && ParseU64(value, 10, &v)) {
      next_run_ = v;
      seen |= 16;
    } else if (key == "output" && !value.empty() && value[0] == '/') {
      committed_output_ = value;
    } else if (key == "output-tmp" && !value.empty() && value[0] == '/') {
      committed_output_tmp_ = value;
    } else if (key == "keys" && ParseU64(value, 10, &v)) {
      seen |= 32;
    } else if (key == "shards" && ParseU64(value, 10, &v) && v >= 2 &&
               v <= kMaxShards && (v & (v - 1)) == 0) {
      shard_count_ = static_cast<uint32_t>(v);
      shard_bits_ = __builtin_ctzll(v);
    } else if (key == "shard") {
      uint64_t place = 0, among = 0;
      const size_t gap = value.find(' ');
      if (gap == std::string::npos ||
          !ParseU64(value.substr(0, gap), 10, &place) ||
          !ParseU64(value.substr(gap + 1), 10, &among) || among < 2 ||
          among > kMaxShards || (among & (among - 1)) != 0 || place >= among)
        return Damaged("MANIFEST has a bad shard line: " + line, error);
      shard_index_ = static_cast<uint32_t>(place);
      shard_of_ = static_cast<uint32_t>(among);
    } else if (key == "generation" && ParseU64(value, 10, &v)) {
      generation_ = v;
    } else if (key == "state" && IsHex16(value)) {
      id_ = value;
    } else if (key == "shard-record") {
      // shard-record GENERATION KEYS INODE SIZE MTIME_NS, shard by shard.
      std::istringstream fields(value);
      std::string f[5];
      ShardRecord r;
      uint64_t mtime = 0;
      if (!(fields >> f[0] >> f[1] >> f[2] >> f[3] >> f[4]) ||
          !ParseU64(f[0], 10, &r.generation) || !ParseU64(f[1], 10, &r.keys) ||
          !ParseU64(f[2], 10, &r.inode) || !ParseU64(f[3], 10, &r.size) ||
          !ParseU64(f[4], 10, &mtime))
        return Damaged("MANIFEST has a bad shard-record line: " + line, error);
      r.mtime_ns = static_cast<int64_t>(mtime);
      records_.push_back(r);
    } else if (key == "written" && ParseU64(value, 10, &v)) {
      written_bytes_ = v;
    } else if (key == "rewritten" && ParseU64(value, 10, &v)) {
      rewritten_bytes_ = v;
    } else if (key == "committed") {
      // committed DIGEST TIME PATH: an output, the digest of its input.
      const size_t sp1 = value.find(' ');
      const size_t sp2 = value.find(' ', sp1 + 1);
      Committed c;
      if (sp1 != 16 || sp2 == std::string::npos ||
          !ParseU64(value.substr(0, 16), 16, &c.digest) ||
          !ParseU64(value.substr(17, sp2 - 17), 10, &c.time) ||
          value.size() < sp2 + 2 || value[sp2 + 1] != '/')
        return Damaged("MANIFEST has a bad committed line: " + line, error);
      c.path = value.substr(sp2 + 1);
      committed_.push_back(c);
    } else if (key == "run") {
      std::istringstream fields(value);
      Run r;
      std::string keys, bytes;
      if (!(fields >> r.name >> keys >> bytes) || !IsRunName(r.name) ||
          !ParseU64(keys, 10, &r.keys) || !ParseU64(bytes, 10, &r.bytes))
        return Damaged("MANIFEST has a bad run line: " + line, error);
      runs_.push_back(r);
    } else {
      return Damaged("MANIFEST has an unknown line: " + line, error);
    }
  }
  if (seen != 63) return Damaged("MANIFEST lacks a field", error);
  // The top of a sharded state records each shard (a state of an earlier
  // release, with no id, records none: CheckFormat()).
  if ((shard_count_ > 1 && !id_.empty()) || !records_.empty()) {
    if (shard_count_ < 2 || records_.size() != shard_count_)
      return Damaged("MANIFEST records " + std::to_string(records_.size()) +
                         " shards of " + std::to_string(shard_count_),
                     error);
  }
  if (shard_count_ > 1 && shard_of_ != 0)
    return Damaged("MANIFEST names shards and is a shard's", error);
  // New runs are numbered from `next` on: a listed run at or past it (or
  // listed twice) would be written over. A MANIFEST that says so is damage,
  // never an instruction.
  for (size_t k = 0; k < runs_.size(); ++k) {
    const std::string& name = runs_[k].name;
    const uint64_t number =
        std::strtoull(name.substr(4, name.size() - 9).c_str(), nullptr, 10);
    if (number >= next_run_)
      return Damaged("MANIFEST names " + name + " but numbers the next run " +
                         std::to_string(next_run_),
                     error);
    for (size_t j = 0; j < k; ++j) {
      if (runs_[j].name == name)
        return Damaged("MANIFEST names " + name + " twice", error);
    }
  }
  exists_ = true;
  return true;
}

bool StateStore::CheckRuns(bool checksums, std::string* error) {
  if (format_ == 1) return true;  // read by Upgrade() alone
  for (const Run& r : runs_) {
    KeyRunReader reader;
    if (!reader.Open(dir_fd_, r.name, dir_ + "/" + r.name, identity_.tag)) {
      return errno == ENOENT && reader.error().rfind("cannot open", 0) == 0
                 ? Damaged("its MANIFEST names " + r.name +
                               ", which is missing",
                           error)
                 : Damaged(reader.error(), error);
    }
    if (reader.header().keys != r.keys ||
        reader.header().file_bytes() != r.bytes)
      return Damaged(r.name + " differs from what its MANIFEST says", error);
    if (checksums && !reader.CheckAll()) return Damaged(reader.error(), error);
  }
  return true;
}

bool StateStore::IsLeftover(const std::string& name) const {
  const bool tmp = name.size() > 4 &&
                   name.compare(name.size() - 4, 4, ".tmp") == 0 &&
                   (name.rfind("run-", 0) == 0 ||
                    name.rfind("MANIFEST", 0) == 0);
  const bool orphan =
      IsRunName(name) &&
      std::none_of(runs_.begin(), runs_.end(),
                   [&](const Run& r) { return r.name == name; });
  // A shard's MANIFEST.next that its top did not decide (one it did was
  // taken when the shard was opened: CheckAgainstTop()).
  return tmp || orphan || name == "MANIFEST.next";
}

// A shard's leftovers go before this run changes anything in it (after,
// its new and merged-away runs would look like leftovers).
void StateStore::Clean() {
  if (cleaned_) return;
  cleaned_ = true;
  RemoveLeftovers();
}

void StateStore::RemoveLeftovers() {
  for (const std::string& name : ListDir(dir_fd_)) {
    if (IsLeftover(name)) unlinkat(dir_fd_, name.c_str(), 0);
  }
}

bool StateStore::OpenForUpdate(const std::string& dir, const Identity& identity,
                              std::string* error, uint32_t shards) {
  dir_ = dir;
  update_ = true;
  made_dir_ = mkdir(dir.c_str(), 0755) == 0;
  if (!made_dir_ && errno != EEXIST) {
    *error = "cannot create state directory " + dir + ": " +
             std::strerror(errno);
    return false;
  }
  // Opened once: every later step works in this directory whatever its
  // name comes to lead to (a link replaced mid-run changes nothing).
  dir_fd_ = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    *error = "cannot open state directory " + dir + ": " +
             (errno == ENOTDIR ? "not a directory" : std::strerror(errno));
    return false;
  }
  if (!CheckOwnership(error) || !JoinTop(error) || !Lock(true, error) ||
      !ReadManifest(error) || !CheckFormat(error))
    return false;
  if (upgrading_) {
    if (!exists_) {
      *error = dir + " is not a state: it has no MANIFEST";
      return false;
    }
  } else if (!exists_) {
    identity_ = identity;  // written by the first commit, not before
  } else if (identity_.tag != identity.tag &&
             identity_.version != identity.version) {
    *error = "state " + dir + " holds keys of profile " +
             identity_.Describe() + ", made by another uriscan: version " +
             std::to_string(identity.version) +
             " of the profiles writes other normal forms, so none of its "
             "keys can match this run's; build the state again from the "
             "URLs it was made of, or use another directory";
    return false;
  } else if (identity_.tag != identity.tag) {
    *error = "state " + dir + " holds keys of profile " +
             identity_.Describe() + ", not of profile " +
             identity.Describe() +
             "; keys of two profiles never match: use the state's "
             "--profile (and --tracking-params) or another directory";
    return false;
  }
  if (top_ && !CheckAgainstTop(error)) return false;
  if (!exists_) {
    shard_count_ = std::max<uint32_t>(shards, 1);
    shard_bits_ = __builtin_ctz(shard_count_);
    id_ = top_ ? top_->id_ : NewId();
    if (shard_count_ > 1) records_.assign(shard_count_, ShardRecord{});
  } else if (id_.empty() && shard_count_ == 1 && !top_) {
    id_ = NewId();  // a state of an earlier release: recorded when it commits
  } else if (shards != 0 && shards != shard_count_) {
    *error = "state " + dir + " has " + std::to_string(shard_count_) +
             " shard" + (shard_count_ == 1 ? "" : "s") + ", not " +
             std::to_string(shards) +
             ": a state's shards are fixed when it is made (leave out "
             "--shards, or use another directory)";
    return false;
  }
  // Each run's header and fence only: its blocks are checked when read.
  if (!CheckRuns(/*checksums=*/false, error) || !CompleteOutput(error))
    return false;
  if (shard_count_ > 1 && !OpenShards(/*checksums=*/false, error))
    return false;
  next_run_ = std::max(next_run_, next_run_floor_);
  if (!keep_leftovers_) RemoveLeftovers();
  return true;
}

void StateStore::SetOutput(const std::string& tmp, const std::string& final,
                          uint64_t digest) {
  output_tmp_ = tmp;
  output_ = final;
  output_digest_ = digest;
}

const StateStore::Committed* StateStore::FindCommitted(
    const std::string& path) const {
  for (auto c = committed_.rbegin(); c != committed_.rend(); ++c) {
    if (c->path == path) return &*c;
  }
  return nullptr;
}

const StateStore::Committed* StateStore::FindCommittedInput(
    uint64_t digest) const {
  for (auto c = committed_.rbegin(); c != committed_.rend(); ++c) {
    if (c->digest == digest) return &*c;
  }
  return nullptr;
}

std::string StateStore::TimeText(uint64_t seconds) {
  char when[32] = "an earlier run";
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc;
  if (gmtime_r(&t, &utc))
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return when;
}

int StateStore::Level(uint64_t keys) {
  int level = 0;
  for (uint64_t top = kLevelBase; keys > top && level < 40; top *= kLevelFactor)
    ++level;
  return level;
}

// A run committed with an output is renamed into place after the commit;
// killed between the two, its lines wait in the temporary file the
// MANIFEST names, and are put in place here, before anything else.
bool StateStore::CompleteOutput(std::string* error) {
  if (committed_output_.empty() || committed_output_tmp_.empty()) return true;
  struct stat st;
  if (lstat(committed_output_tmp_.c_str(), &st) != 0) {
    // Done, unless FILE is gone too: then its lines are in no file (the
    // temporary file removed by a cleaner before a run completed it, or
    // FILE moved since). Said, never replaced by an empty file.
    if (lstat(committed_output_.c_str(), &st) != 0) {
      const Committed* c = FindCommitted(committed_output_);
      lost_output_ = committed_output_ + ", the output committed to " + dir_ +
                     (c ? " at " + TimeText(c->time) : std::string()) +
                     ", is missing, and so is the temporary file it was "
                     "written to (" + committed_output_tmp_ +
                     "): the new lines of that run are in the state and in "
                     "no file";
    }
    return true;
  }
  if (!S_ISREG(st.st_mode) ||
      durable::RenameNoReplace(AT_FDCWD, committed_output_tmp_, AT_FDCWD,
                               committed_output_) != 0) {
    *error = "cannot put the output of the last committed run in place: " +
             committed_output_tmp_ + " to " + committed_output_ + ": " +
             (S_ISREG(st.st_mode) ? std::strerror(errno)
                                  : "not a regular file");
    return false;
  }
  // Its name is durable before anything else happens (an error here is
  // the next commit's to find again).
  std::string ignored;
  (void)durable::SyncDirectory(
      committed_output_.substr(0, committed_output_.rfind('/') + 1), &ignored);
  return true;
}

bool StateStore::OpenForReading(const std::string& dir, std::string* error,
                               bool checksums, bool top_only) {
  dir_ = dir;
  dir_fd_ = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    *error = "no state directory " + dir;
    return false;
  }
  if ((!top_only && !JoinTop(error)) || !Lock(false, error) ||
      !ReadManifest(error) || !CheckFormat(error))
    return false;
  if (!exists_) {  // no MANIFEST and no key runs (ReadManifest)
    *error = dir + " is not a state: it has no MANIFEST (no dedup --state=" +
             dir + " run has finished there)";
    return false;
  }
  if (top_only) return true;
  // A shard whose commit was decided but not completed: read as it will be.
  if (top_ && !CheckAgainstTop(error)) return false;
  if (!CheckRuns(checksums, error)) return false;  // a sharded top's too
  return shard_count_ < 2 || OpenShards(checksums, error);
}

std::vector<StateStore::Unlisted> StateStore::UnlistedFiles() const {
  std::vector<Unlisted> files;
  for (const std::string& name : ListDir(dir_fd_)) {
    if (name == "." || name == ".." || name == "MANIFEST" || name == "LOCK" ||
        (shard_count_ > 1 && IsShardName(name, shard_count_)) ||
        std::any_of(runs_.begin(), runs_.end(),
                    [&](const Run& r) { return r.name == name; }))
      continue;
    struct stat st;
    const bool sized =
        fstatat(dir_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    files.push_back({name, sized ? static_cast<uint64_t>(st.st_size) : 0,
                     IsLeftover(name)});
  }
  std::sort(files.begin(), files.end(),
            [](const Unlisted& a, const Unlisted& b) { return a.name < b.name; });
  return files;
}

bool StateStore::BeginLookups(std::string* error, uint64_t expected,
                              bool trusted) {
  trusted_ = trusted;
  if (!shards_.empty()) {
    // A new state's top MANIFEST comes before any shard's directory: shards
    // are never without one. Each shard's lookups begin with its first key.
    if (!exists_ && !made_manifest_ && !FirstManifest(error)) return false;
    any_offered_ = false;
    // A small run's keys go to one run in the top directory: no shard is
    // written. A large one (or once the top is full) writes every shard's
    // keys to that shard, and moves the top's there too.
    uint64_t top_keys = 0;
    for (const Run& r : runs_) top_keys += r.keys;
    // URISCAN_TEST_TOP_KEYS lowers both bounds (tests reach Flush() with
    // small inputs).
    static const char* test_bound = std::getenv("URISCAN_TEST_TOP_KEYS");
    const uint64_t most = test_bound ? std::strtoull(test_bound, nullptr, 10)
                                     : kTopKeys;
    top_mode_ = expected <= std::min(kTopRunKeys, most) &&
                top_keys + expected <= most && !upgrading_;
    if (!top_mode_) return true;
  } else if (loaded_) {  // a shard of the state being updated: its first key
    touched_ = true;
    lookups_open_ = true;
    // A shard never written holds no key: nothing to read (nor to make,
    // when the top writes the new keys).
    if (!exists_ && top_->top_mode_) return true;
    if (!Enter(error) || !ReadShard(error)) return false;
    // What a killed run left, where this run writes (a shard only read
    // keeps it for the next run that writes there).
    if (!top_->top_mode_) Clean();
  }
  // Largest (oldest) first: a key seen before is most likely there, and
  // the runs after it are then not asked. Each run's header and fence are
  // checked (a shard's here, an unsharded state's at its opening too).
  // Trusted keys are all new: no run is read.
  const bool trusted_keys = trusted_ || (top_ && top_->trusted_);
  for (auto r = runs_.begin(); r != runs_.end() && !trusted_keys; ++r) {
    readers_.push_back(std::make_unique<KeyRunReader>());
    if (!readers_.back()->Open(dir_fd_, r->name, dir_ + "/" + r->name,
                               identity_.tag)) {
      return errno == ENOENT &&
                     readers_.back()->error().rfind("cannot open", 0) == 0
                 ? Damaged("its MANIFEST names " + r->name +
                               ", which is missing",
                           error)
                 : Damaged(readers_.back()->error(), error);
    }
    if (readers_.back()->header().keys != r->keys ||
        readers_.back()->header().file_bytes() != r->bytes)
      return Damaged(r->name + " differs from what its MANIFEST says", error);
  }
  // A shard's keys may also be in its top's runs (its range of them).
  if (top_ && !top_->top_mode_ && !trusted_keys) {
    for (const Run& r : top_->runs_) {
      top_readers_.push_back(std::make_unique<KeyRunReader>());
      if (!top_readers_.back()->Open(top_->dir_fd_, r.name,
                                     top_->dir_ + "/" + r.name, identity_.tag))
        return top_->Damaged(top_readers_.back()->error(), error);
    }
  }
  if (top_ && top_->top_mode_) return true;  // the top writes the new keys
  pending_ = RunName(next_run_);
  writer_ = std::make_unique<KeyRunWriter>();
  if (!writer_->Open(dir_fd_, pending_ + ".tmp", dir_ + "/" + pending_ + ".tmp",
                     identity_.tag)) {
    *error = writer_->error();
    return false;
  }
  return true;
}

// Whether `key` is in this state's runs (a shard's: or its top's); false
// on damage too, with lookup_failed_ set.
bool StateStore::Seen(uint64_t key) {
  for (auto* readers : {&readers_, &top_readers_}) {
    for (auto& reader : *readers) {
      if (reader->Contains(key)) return true;
      if (reader->failed()) {
        lookup_failed_ = true;
        return true;
      }
    }
  }
  return false;
}

bool StateStore::Offer(uint64_t key) {
  if (!shards_.empty()) {  // keys increase: a shard's end is the next's start
    const size_t s = ShardOf(key);
    if (any_offered_ && s != current_shard_) EndShardLookups(current_shard_);
    current_shard_ = s;
    any_offered_ = true;
    if (!top_mode_) return shards_[s]->Offer(key);
    // Top mode: the shard's runs, then the top's; a new key to the top.
    StateStore* shard = shards_[s].get();
    if (shard->lookup_failed_ || lookup_failed_) return false;
    if (!trusted_ && !shard->lookups_open_ && !shard->touched_ &&
        !shard->BeginLookups(&shard->shard_error_)) {
      shard->lookup_failed_ = true;
      return false;
    }
    if (shard->Seen(key) || Seen(key)) return false;
    writer_->Add(key);
    ++new_keys_;
    return true;
  }
  if (lookup_failed_) return false;
  if (loaded_ && !lookups_open_) {
    if (touched_) {
      shard_error_ = "keys of " + dir_ + " came after its lookups ended";
    } else if (BeginLookups(&shard_error_)) {
      return Offer(key);
    }
    lookup_failed_ = true;
    return false;
  }
  if (shard_of_ > 0 &&
      (key >> (64 - __builtin_ctz(shard_of_))) != shard_index_) {
    out_of_shard_ = lookup_failed_ = true;  // routed to the wrong shard
    return false;
  }
  if (Seen(key)) return false;
  writer_->Add(key);
  ++new_keys_;
  return true;
}

void StateStore::EndShardLookups(size_t i) {
  StateStore* shard = shards_[i].get();
  if (!shard->lookups_open_) return;
  std::string error;
  if (!shard->EndShard(&error) && shard->shard_error_.empty())
    shard->shard_error_ = error;
}

// A shard's lookups end: its new run named and merged, its files closed.
bool StateStore::EndShard(std::string* error) {
  lookups_open_ = false;
  bool ended = shard_error_.empty();
  if (!ended) *error = shard_error_;
  ended = ended && EndLookups(error);
  readers_.clear();
  top_readers_.clear();
  if (writer_) {
    writer_.reset();
    unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
  }
  Leave();
  return ended;
}

bool StateStore::EndLookups(std::string* error) {
  if (!shards_.empty()) {
    for (size_t i = 0; i < shards_.size(); ++i) EndShardLookups(i);
    for (auto& shard : shards_) {  // the first shard's error, in order
      if (!shard->shard_error_.empty()) {
        *error = shard->shard_error_;
        return false;
      }
      lookup_bytes_ += shard->lookup_bytes();
      new_keys_ += shard->new_keys();
      compacted_keys_ = std::max(compacted_keys_, shard->compacted_keys());
    }
    if (!top_mode_) return Flush(error);  // the top's keys to the shards
  }
  if (out_of_shard_) {
    *error = "state " + dir_ + " is " + ShardName() +
             " of a sharded state, and this run has keys of other shards: "
             "give each shard only its own lines (those whose 64-bit key has "
             "the shard's number in its top bits), or use the whole state";
    return false;
  }
  for (auto* readers : {&readers_, &top_readers_}) {
    for (auto& reader : *readers) {
      if (reader->failed()) return Damaged(reader->error(), error);
      lookup_bytes_ += reader->bytes_read();
    }
  }
  readers_.clear();
  top_readers_.clear();
  if (!writer_) return true;  // a shard whose keys the top writes
  // A shard's files are synced with the others of its commit (SyncAll).
  if (!writer_->Finish(/*sync=*/!loaded_)) {
    *error = writer_->error();
    return false;
  }
  if (new_keys_ == 0) {
    writer_.reset();
    unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
    return true;
  }
  // A new state's first MANIFEST comes before its first run is named (a
  // shard's: its MANIFEST.next, written by PrepareShard()).
  if (!exists_ && !loaded_ && !made_manifest_ && !FirstManifest(error))
    return false;
  return NameNewRun(error);
}

// Merges `sources` into the new run `name` (its temporary name first).
template <class Reader>
bool StateStore::MergeInto(std::vector<std::unique_ptr<Reader>>* readers,
                          const std::string& name, uint64_t* keys,
                          uint64_t* bytes, std::string* error) {
  std::vector<RunSource<Reader>> sources;
  for (auto& r : *readers) sources.push_back(RunSource<Reader>{r.get()});
  const std::string tmp = name + ".tmp";
  KeyRunWriter out;
  if (!out.Open(dir_fd_, tmp, dir_ + "/" + tmp, identity_.tag)) {
    *error = out.error();
    unlinkat(dir_fd_, tmp.c_str(), 0);  // made, but no header written
    return false;
  }
  // The merge (decoding) on this thread, the new run's encoding on another:
  // they cost about the same, and nothing else runs at commit time. Keys
  // pass in batches through one slot.
  constexpr size_t kBatch = size_t{1} << 16;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<uint64_t> filling, slot;
  bool slot_full = false, merged = false;
  std::thread encoder([&] {
    std::vector<uint64_t> batch;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return slot_full || merged; });
        if (!slot_full) return;  // merged, and every batch taken
        batch.swap(slot);
        slot_full = false;
      }
      cv.notify_all();
      for (uint64_t key : batch) out.Add(key);
      batch.clear();
    }
  });
  auto hand_over = [&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !slot_full; });
    filling.swap(slot);
    slot_full = true;
    lock.unlock();
    cv.notify_all();
  };
  filling.reserve(kBatch);
  KWayMerge<uint64_t>(
      sources, [](uint64_t a, uint64_t b) { return a < b; },
      [](uint64_t a, uint64_t b) { return a == b; },
      [&](uint64_t key) {
        filling.push_back(key);
        if (filling.size() == kBatch) {
          hand_over();
          filling.clear();
          filling.reserve(kBatch);
        }
      });
  if (!filling.empty()) hand_over();
  {
    std::lock_guard<std::mutex> lock(mu);
    merged = true;
  }
  cv.notify_all();
  encoder.join();
  for (auto& r : *readers) {
    if (r->failed()) {
      unlinkat(dir_fd_, tmp.c_str(), 0);
      return Damaged(r->error(), error);
    }
  }
  // A shard's merge is synced with the rest of its commit (SyncAll).
  if (!out.Finish(/*sync=*/!loaded_)) {
    *error = out.error();
    unlinkat(dir_fd_, tmp.c_str(), 0);
    return false;
  }
  durable::CrashPoint("compacted-unnamed");
  if (durable::RenameNoReplace(dir_fd_, tmp, dir_fd_, name) != 0) {
    *error = "cannot rename " + dir_ + "/" + tmp + ": " + std::strerror(errno);
    unlinkat(dir_fd_, tmp.c_str(), 0);
    return false;
  }
  made_runs_.push_back(name);
  if (loaded_) unsynced_.push_back(name);
  *keys = out.keys();
  *bytes = out.file_bytes();
  return true;
}

// The runs from `from` on are replaced by `merged` (made by MergeInto).
void StateStore::ReplaceRuns(size_t from, const Run& merged) {
  ++next_run_;
  compacted_keys_ = merged.keys;
  rewritten_bytes_ += merged.bytes;
  for (size_t i = from; i < runs_.size(); ++i) obsolete_.push_back(runs_[i].name);
  runs_.resize(from);
  runs_.push_back(merged);
}

bool StateStore::Compact(bool all, std::string* error) {
  // Levels by size: level k holds up to kLevelBase * (kLevelFactor)^k keys.
  // The newest runs are merged while the run before them is of their
  // level or a lower one, so levels strictly fall from the oldest run to
  // the newest: at most one run per level, log_kLevelFactor(n / kLevelBase)
  // + 1 runs, and a small run never merges into a large one (a run of
  // level k is merged only once the newer ones together reach level k).
  size_t from = runs_.size() - 1;
  uint64_t newer = runs_.back().keys;
  while (from > 0 && Level(runs_[from - 1].keys) <= Level(newer))
    newer += runs_[--from].keys;
  if (all || runs_.size() > kMaxRuns) from = 0;
  if (runs_.size() - from < 2) return true;
  std::vector<std::unique_ptr<KeyRunReader>> readers;
  for (size_t i = from; i < runs_.size(); ++i) {
    readers.push_back(std::make_unique<KeyRunReader>());
    if (!readers.back()->Open(dir_fd_, runs_[i].name,
                              dir_ + "/" + runs_[i].name, identity_.tag))
      return Damaged(readers.back()->error(), error);
  }
  Run merged{RunName(next_run_), 0, 0};
  if (!MergeInto(&readers, merged.name, &merged.keys, &merged.bytes, error))
    return false;
  ReplaceRuns(from, merged);
  return true;
}

bool StateStore::CheckFormat(std::string* error) const {
  if (exists_ && format_ == 2 && shard_count_ > 1 && id_.empty() &&
      !upgrading_) {
    *error = "state " + dir_ +
             " was written by an earlier uriscan, whose shards do not record "
             "the state they belong to; convert it once with `uriscan state " +
             dir_ + " --upgrade` (crash-safe, in place)";
    return false;
  }
  if (!exists_ || format_ == 2 || upgrading_) return true;
  *error = "state " + dir_ +
           " was written by an earlier uriscan (state format 1, runs "
           "without block indexes); convert it once with `uriscan state " +
           dir_ + " --upgrade` (crash-safe, in place), or build it again";
  return false;
}

bool StateStore::Upgrade(const std::string& dir, std::string* error) {
  upgrading_ = true;
  if (!OpenForUpdate(dir, Identity{}, error)) return false;
  if (shard_count_ > 1) {
    if (!id_.empty()) return true;  // nothing to do
    // An earlier release's shards: each is given the state's new id and
    // recorded at a new generation, in one sharded commit.
    id_ = NewId();
    for (auto& shard : shards_) {
      shard->id_ = id_;
      shard->force_prepare_ = true;
    }
    if (!CommitShards(error)) return false;
    upgraded_ = true;
    return true;
  }
  if (format_ == 2) return true;  // nothing to do
  std::vector<std::unique_ptr<KeyRunReaderV1>> readers;
  uint64_t keys = 0;
  for (const Run& r : runs_) {
    readers.push_back(std::make_unique<KeyRunReaderV1>());
    if (!readers.back()->Open(dir_fd_, r.name, dir_ + "/" + r.name,
                              identity_.tag, size_t{1} << 20))
      return Damaged(readers.back()->error(), error);
    if (readers.back()->keys() != r.keys)
      return Damaged(r.name + " differs from what its MANIFEST says", error);
    keys += r.keys;
  }
  format_ = 2;
  if (runs_.empty()) return Publish(error);
  Run merged{RunName(next_run_), 0, 0};
  if (!MergeInto(&readers, merged.name, &merged.keys, &merged.bytes, error))
    return false;
  if (merged.keys > keys)
    return Damaged("its runs decode to more keys than its MANIFEST names",
                   error);
  ReplaceRuns(0, merged);
  rewritten_bytes_ -= merged.bytes;  // a new state's first run, in effect
  written_bytes_ += merged.bytes;
  upgraded_ = true;
  return Publish(error);
}

std::string StateStore::Manifest(bool with_output) const {
  std::string m = std::string(kManifestHead) + "\n";
  m += "profile " + identity_.profile + "\n";
  m += "profile-version " + std::to_string(identity_.version) + "\n";
  m += "tracking " + (identity_.tracking.empty() ? "-" : identity_.tracking) +
       "\n";
  m += "profile-tag " + Hex(identity_.tag) + "\n";
  if (!id_.empty()) m += "state " + id_ + "\n";
  m += "next " + std::to_string(next_run_) + "\n";
  m += "keys " + std::to_string(keys()) + "\n";
  if (shard_count_ > 1) m += "shards " + std::to_string(shard_count_) + "\n";
  if (shard_of_ > 0)
    m += "shard " + std::to_string(shard_index_) + " " +
         std::to_string(shard_of_) + "\n";
  if (generation_ > 0) m += "generation " + std::to_string(generation_) + "\n";
  for (const ShardRecord& r : records_) {
    m += "shard-record " + std::to_string(r.generation) + " " +
         std::to_string(r.keys) + " " + std::to_string(r.inode) + " " +
         std::to_string(r.size) + " " + std::to_string(r.mtime_ns) + "\n";
  }
  m += "written " + std::to_string(written_bytes_) + "\n";
  m += "rewritten " + std::to_string(rewritten_bytes_) + "\n";
  for (const Committed& c : committed_)
    m += "committed " + Hex(c.digest) + " " + std::to_string(c.time) + " " +
         c.path + "\n";
  if (with_output && !output_.empty()) {
    m += "output " + output_ + "\n";
    m += "output-tmp " + output_tmp_ + "\n";
  }
  for (const Run& r : runs_) {
    m += "run " + r.name + " " + std::to_string(r.keys) + " " +
         std::to_string(r.bytes) + "\n";
  }
  m += "checksum " + Hex(XXH3_64bits(m.data(), m.size())) + "\n";
  return m;
}

void StateStore::RecordOutput() {
  if (!output_.empty()) {  // the output joins the list of committed ones
    committed_.erase(std::remove_if(committed_.begin(), committed_.end(),
                                    [&](const Committed& c) {
                                      return c.path == output_;
                                    }),
                     committed_.end());
    if (committed_.size() >= kMaxCommitted)
      committed_.erase(committed_.begin(),
                       committed_.end() - (kMaxCommitted - 1));
    committed_.push_back(Committed{
        output_digest_,
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                  std::chrono::system_clock::now()
                                      .time_since_epoch())
                                  .count()),
        output_});
  }
}

// A new state's first MANIFEST, naming no run (nor output: the output
// belongs to the commit), comes before its first run is named: no key run
// is ever without one (that reads as damage).
bool StateStore::FirstManifest(std::string* error) {
  if (!durable::ReplaceFile(dir_fd_, dir_, "MANIFEST",
                            Manifest(/*with_output=*/false), error))
    return false;
  made_manifest_ = true;
  return durable::SyncDirectory(dir_fd_, dir_, error);
}

// The new run under its own name, then the merges of the policy.
bool StateStore::NameNewRun(std::string* error) {
  const std::string tmp = pending_ + ".tmp";
  durable::CrashPoint("run-unnamed");
  if (durable::RenameNoReplace(dir_fd_, tmp, dir_fd_, pending_) != 0) {
    *error = "cannot rename " + dir_ + "/" + tmp + ": " + std::strerror(errno);
    return false;
  }
  made_runs_.push_back(pending_);
  if (loaded_) unsynced_.push_back(pending_);
  runs_.push_back(Run{pending_, writer_->keys(), writer_->file_bytes()});
  written_bytes_ += writer_->file_bytes();
  ++next_run_;
  writer_.reset();
  durable::CrashPoint("run-named");
  // A SeenState's merges are made on its own thread (ApplyMerge()).
  if (defer_merges_ && !loaded_) return true;
  return Compact(false, error);
}

std::vector<StateStore::Run> StateStore::PlanMerge(size_t first,
                                                   size_t limit) const {
  limit = std::min(limit, runs_.size());
  if (limit < first + 2) return {};
  size_t from = limit - 1;
  uint64_t newer = runs_[from].keys;
  while (from > first && Level(runs_[from - 1].keys) <= Level(newer))
    newer += runs_[--from].keys;
  if (limit - from < 2) return {};
  return std::vector<Run>(runs_.begin() + static_cast<std::ptrdiff_t>(from),
                          runs_.begin() + static_cast<std::ptrdiff_t>(limit));
}

bool StateStore::ReplaceWithMerged(const std::vector<Run>& inputs,
                                   const Run& merged) {
  size_t from = 0;
  while (from < runs_.size() && runs_[from].name != inputs.front().name)
    ++from;
  bool found = from + inputs.size() <= runs_.size();
  for (size_t i = 0; found && i < inputs.size(); ++i)
    found = runs_[from + i].name == inputs[i].name;
  if (!found) return false;
  compacted_keys_ = merged.keys;
  rewritten_bytes_ += merged.bytes;
  for (const Run& r : inputs) obsolete_.push_back(r.name);
  runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(from),
              runs_.begin() + static_cast<std::ptrdiff_t>(from + inputs.size()));
  runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(from), merged);
  return true;
}

bool StateStore::ApplyMerge(const std::vector<Run>& inputs, const Run& merged,
                            std::string* error) {
  if (!ReplaceWithMerged(inputs, merged)) {
    *error = "the runs merged in the background are no longer those of " +
             dir_;
    return false;
  }
  ++generation_;
  return Publish(error);
}

std::string StateStore::ShardDirName(uint32_t i) { return ShardDir(i); }

bool StateStore::LoadShardRun(size_t i, std::string* error) {
  StateStore* shard = shards_[i].get();
  if (shard->manifest_read_ || !shard->exists_) return true;
  const bool read = shard->Enter(error) && shard->ReadShard(error);
  shard->Leave();
  return read;
}

bool StateStore::Commit(std::string* error) {
  if (!shards_.empty()) return CommitShards(error);
  const auto start = std::chrono::steady_clock::now();
  RecordOutput();
  // The new run was named, and the merges made, by EndLookups(). Nothing
  // new: the state stays as it is, but for the output it names.
  if (exists_ && new_keys_ == 0 && obsolete_.empty() && output_.empty())
    return true;
  ++generation_;  // a shard committed alone is newer than its top's record
  if (!Publish(error)) return false;
  commit_seconds_ = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return true;
}

// ---- Sharded states ----
//
// The top MANIFEST names the state's id and, for each shard, the
// generation it committed the shard at; each shard's MANIFEST names the
// same id and its own generation. A sharded commit is decided by the top
// MANIFEST: each shard it touched first writes its new run and merges,
// then MANIFEST.next (its MANIFEST to be, one generation on), none of them
// synced; then one pass syncs them all and their directories; then the
// top MANIFEST, recording the shards' new generations, is renamed into
// place (the commit point); then each shard's MANIFEST.next is renamed to
// MANIFEST. A shard opened later that is older than its record takes its
// MANIFEST.next when that is the generation recorded (the commit was
// decided), and is damage otherwise (CheckAgainstTop()).

std::string StateStore::ShardName() const {
  if (shard_of_ == 0) return "";
  return "shard " + std::to_string(shard_index_) + " of " +
         std::to_string(shard_of_);
}

bool StateStore::OpenShards(bool checksums, std::string* error) {
  for (uint32_t i = 0; i < shard_count_; ++i) {
    auto shard = std::make_unique<StateStore>();
    shard->top_ = this;
    shard->loaded_ = true;
    shard->update_ = update_;
    shard->dir_ = dir_ + "/" + ShardDir(i);
    shard->shard_index_ = shard->place_ = i;
    shard->shard_of_ = shard_count_;
    shard->identity_ = identity_;  // a new shard's; a MANIFEST says its own
    shard->id_ = id_;
    const bool loaded = shard->LoadShard(checksums, error);
    shards_.push_back(std::move(shard));
    if (!loaded) return false;
  }
  return true;
}

// A shard of the state being opened. To update, a shard whose MANIFEST is
// the one the top recorded (inode, size, time) is known by that record (one
// fstatat; its MANIFEST is read when a key of it comes: ReadShard()); any
// other is read and checked against the top now. To read the state, every
// shard is read with its runs. No descriptor stays open.
bool StateStore::LoadShard(bool checksums, std::string* error) {
  const ShardRecord* recorded = RecordOf();
  if (recorded) record_ = *recorded;
  if (update_ && recorded && recorded->generation > 0) {
    struct stat st;
    const std::string manifest = ShardDir(place_) + "/MANIFEST";
    if (fstatat(top_->dir_fd_, manifest.c_str(), &st, AT_SYMLINK_NOFOLLOW) ==
            0 &&
        S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_ino) == record_.inode &&
        static_cast<uint64_t>(st.st_size) == record_.size &&
        st.st_mtim.tv_sec * int64_t{1000000000} + st.st_mtim.tv_nsec ==
            record_.mtime_ns) {
      exists_ = true;
      manifest_read_ = false;
      generation_ = record_.generation;
      return true;
    }
  }
  dir_fd_ = openat(top_->dir_fd_, ShardDir(place_).c_str(),
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd_ < 0) {
    if (errno == ENOENT && Recorded() == 0) return true;  // made when used
    if (errno == ENOENT)
      return Damaged("it is missing, but the state committed it (at "
                     "generation " + std::to_string(Recorded()) + ")",
                     error);
    *error = "cannot open shard " + dir_ + ": " +
             (errno == ENOTDIR || errno == ELOOP ? std::string("not a directory")
                                                 : std::strerror(errno));
    return false;
  }
  // A reader holds the shard's lock while it reads it, so that a task
  // committing the shard alone is not read half done.
  const bool loaded = CheckOwnership(error) && (update_ || Lock(false, error)) &&
                      ReadManifest(error) && CheckAgainstTop(error) &&
                      (update_ || CheckRuns(checksums, error));
  if (!update_ && lock_fd_ >= 0) {
    close(lock_fd_);
    lock_fd_ = -1;
  }
  Leave();
  return loaded;
}

// The MANIFEST of a shard known by its record, read when it is first used
// (its directory open): it must still be what the record says.
bool StateStore::ReadShard(std::string* error) {
  if (manifest_read_) return true;
  const ShardRecord recorded = record_;
  if (!ReadManifest(error) || !CheckAgainstTop(error)) return false;
  manifest_read_ = true;
  if (!(record_ == recorded))
    return Damaged("its MANIFEST changed while the state was open", error);
  return true;
}

// record_'s inode, size and time: those of `file` in the shard's directory.
bool StateStore::StatRecord(const char* file) {
  struct stat st = manifest_stat_;
  if (!(manifest_stat_valid_ && std::strcmp(file, "MANIFEST") == 0) &&
      fstatat(dir_fd_, file, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return false;
  record_.inode = static_cast<uint64_t>(st.st_ino);
  record_.size = static_cast<uint64_t>(st.st_size);
  record_.mtime_ns = st.st_mtim.tv_sec * int64_t{1000000000} + st.st_mtim.tv_nsec;
  return true;
}

// DIR/shard-NNNN opened by itself: its top read under a shared lock, kept
// until this state is closed, so no run of the whole state starts meanwhile.
bool StateStore::JoinTop(std::string* error) {
  std::string path = dir_;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::string base = path.substr(path.find_last_of('/') + 1);
  if (!IsShardName(base, kMaxShards)) return true;
  auto top = std::make_unique<StateStore>();
  top->dir_ = path.size() > base.size()
                  ? path.substr(0, path.size() - base.size() - 1)
                  : std::string(".");
  if (top->dir_.empty()) top->dir_ = "/";
  top->dir_fd_ = openat(dir_fd_, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top->dir_fd_ < 0) return true;
  top->lock_wait_ = lock_wait_;
  if (!top->Lock(false, error) || !top->ReadManifest(error)) return false;
  const uint32_t index =
      static_cast<uint32_t>(std::strtoul(base.c_str() + 6, nullptr, 10));
  if (!top->exists_ || top->shard_count_ < 2 || index >= top->shard_count_)
    return true;  // not a shard of a state above it
  if (!top->CheckFormat(error)) return false;
  shard_index_ = place_ = index;
  shard_of_ = top->shard_count_;
  own_top_ = std::move(top);
  top_ = own_top_.get();
  return true;
}

const StateStore::ShardRecord* StateStore::RecordOf() const {
  if (!top_ || place_ >= top_->records_.size()) return nullptr;
  return &top_->records_[place_];
}

uint64_t StateStore::Recorded() const {
  if (!top_) return 0;
  // An earlier release recorded no shard: each commit reached every shard.
  if (top_->records_.empty()) return top_->id_.empty() ? top_->generation_ : 0;
  return top_->records_[place_].generation;
}

bool StateStore::CheckAgainstTop(std::string* error) {
  const uint64_t recorded = Recorded();
  const std::string name = ShardDir(place_);
  const uint32_t index = place_, of = top_->shard_count_;
  if (exists_ && (shard_index_ != index || shard_of_ != top_->shard_count_ ||
                  shard_count_ != 1 || identity_.tag != top_->identity_.tag))
    return Damaged("its MANIFEST is not that of shard " +
                       std::to_string(index) + " of " + std::to_string(of) +
                       " of the state above it",
                   error);
  if (exists_ && id_ != top_->id_)
    return Damaged("its MANIFEST is that of another state (id " +
                       (id_.empty() ? std::string("none") : id_) + ", not " +
                       top_->id_ + "): a shard of another state's copy?",
                   error);
  if (exists_ && generation_ >= recorded) {
    // As read now: the next commit records it (a shard committed alone
    // since by a Dask task is newer than its record).
    record_.generation = generation_;
    record_.keys = 0;
    for (const Run& r : runs_) record_.keys += r.keys;
    if (!StatRecord("MANIFEST")) record_ = ShardRecord{};
    const ShardRecord* old = RecordOf();
    if (!old || !(*old == record_)) top_->records_stale_ = true;
    return true;
  }
  // Older than the top's record, or no MANIFEST: a commit decided but not
  // completed left the MANIFEST.next of that generation; else damage.
  if (recorded > 0) {
    StateStore next;
    next.dir_ = dir_;
    next.dir_fd_ = dup(dir_fd_);
    next.top_ = top_;
    next.shard_index_ = index;
    next.shard_of_ = of;
    std::string ignored;  // a MANIFEST.next torn by a crash was not decided
    struct stat st;
    if (fstatat(dir_fd_, "MANIFEST.next", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        next.dir_fd_ >= 0 && next.ReadManifestFile("MANIFEST.next", &ignored) &&
        next.exists_ && next.generation_ == recorded &&
        next.id_ == top_->id_ && next.shard_index_ == index &&
        next.shard_of_ == of) {
      if (!update_) return ReadManifestFile("MANIFEST.next", error);
      if (renameat(dir_fd_, "MANIFEST.next", dir_fd_, "MANIFEST") != 0) {
        *error = "cannot rename " + dir_ + "/MANIFEST.next: " +
                 std::strerror(errno);
        return false;
      }
      return durable::SyncDirectory(dir_fd_, dir_, error) &&
             ReadManifest(error) && CheckAgainstTop(error);
    }
  }
  if (recorded == 0) return true;  // the state never committed: a new shard
  if (!exists_ && made_dir_)
    return Damaged("it is missing, but the state committed it (at "
                   "generation " + std::to_string(recorded) + ")",
                   error);
  if (!exists_)
    return Damaged("it has no MANIFEST, but the state committed " + name +
                       " at generation " + std::to_string(recorded) +
                       ": it was emptied",
                   error);
  return Damaged("it is at generation " + std::to_string(generation_) +
                     ", older than generation " + std::to_string(recorded) +
                     ", at which the state committed it: restored from an "
                     "older copy?",
                 error);
}

bool StateStore::Enter(std::string* error) {
  if (dir_fd_ >= 0) return true;
  const std::string name = ShardDir(place_);
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  dir_fd_ = openat(top_->dir_fd_, name.c_str(), flags);
  if (dir_fd_ < 0 && errno == ENOENT && update_ && !exists_ &&
      mkdirat(top_->dir_fd_, name.c_str(), 0755) == 0) {
    made_dir_ = true;
    dir_fd_ = openat(top_->dir_fd_, name.c_str(), flags);
  }
  if (dir_fd_ < 0) {
    *error = "cannot open shard " + dir_ + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

void StateStore::Leave() {
  if (loaded_ && dir_fd_ >= 0) {
    close(dir_fd_);
    dir_fd_ = -1;
  }
}

// A shard in this commit: its MANIFEST.next, one generation on, written
// but not synced (CommitShards() syncs the group). A shard with nothing
// new is not part of the commit, unless it is new or asked to be.
bool StateStore::PrepareShard(std::string* error) {
  if (merge_all_ && runs_.size() >= 2 && !Compact(true, error)) return false;
  if (exists_ && new_keys_ == 0 && obsolete_.empty() && !force_prepare_ &&
      !flushed_)
    return true;
  ++generation_;
  if (!durable::ReplaceFile(dir_fd_, dir_, "MANIFEST.next", Manifest(), error,
                            /*sync=*/false))
    return false;
  made_next_ = prepared_ = true;
  unsynced_.push_back("MANIFEST.next");
  // What the top records: renamed to MANIFEST, the file keeps its inode.
  record_.generation = generation_;
  record_.keys = keys();
  if (!StatRecord("MANIFEST.next")) {
    *error = "cannot stat " + dir_ + "/MANIFEST.next: " + std::strerror(errno);
    return false;
  }
  return true;
}

bool StateStore::Apply(std::string* error) {
  if (!Enter(error)) return false;
  if (renameat(dir_fd_, "MANIFEST.next", dir_fd_, "MANIFEST") != 0) {
    *error = "cannot rename " + dir_ + "/MANIFEST.next: " + std::strerror(errno);
    Leave();
    return false;
  }
  made_next_ = false;
  durable::CrashPoint("shard-applied");
  // Not synced: a MANIFEST.next the top decided is taken by whoever opens
  // the shard next, and the runs merged away are named by neither.
  exists_ = true;
  for (const std::string& name : obsolete_) unlinkat(dir_fd_, name.c_str(), 0);
  obsolete_.clear();
  Leave();
  return true;
}

// A run in shard mode: the keys the top holds go to their shards, a run
// each, in one pass over the top's runs (which the commit then removes).
// Before any line of the run is written, as merges are.
bool StateStore::Flush(std::string* error) {
  if (runs_.empty()) return true;
  std::vector<std::unique_ptr<KeyRunReader>> readers;
  std::vector<RunSource<KeyRunReader>> sources;
  for (const Run& r : runs_) {
    readers.push_back(std::make_unique<KeyRunReader>());
    if (!readers.back()->Open(dir_fd_, r.name, dir_ + "/" + r.name,
                              identity_.tag))
      return Damaged(readers.back()->error(), error);
    sources.push_back(RunSource<KeyRunReader>{readers.back().get()});
  }
  StateStore* shard = nullptr;
  std::unique_ptr<KeyRunWriter> out;
  std::string name, failure;
  // The shard's run of the top's keys: named, then the shard's merges.
  auto finish = [&]() -> bool {
    if (!out->Finish(/*sync=*/false)) {
      failure = out->error();
      return false;
    }
    if (durable::RenameNoReplace(shard->dir_fd_, name + ".tmp", shard->dir_fd_,
                                 name) != 0) {
      failure = "cannot rename " + shard->dir_ + "/" + name + ".tmp: " +
                std::strerror(errno);
      return false;
    }
    shard->made_runs_.push_back(name);
    shard->unsynced_.push_back(name);
    shard->runs_.push_back(Run{name, out->keys(), out->file_bytes()});
    shard->rewritten_bytes_ += out->file_bytes();
    ++shard->next_run_;
    shard->flushed_ = true;
    const bool merged = shard->Compact(false, &failure);
    shard->Leave();
    return merged;
  };
  KWayMerge<uint64_t>(
      sources, [](uint64_t a, uint64_t b) { return a < b; },
      [](uint64_t a, uint64_t b) { return a == b; },
      [&](uint64_t key) {
        if (!failure.empty()) return;
        StateStore* to = shards_[ShardOf(key)].get();
        if (to != shard) {
          if (shard && !finish()) return;
          shard = to;
          if (!shard->Enter(&failure) || !shard->ReadShard(&failure)) return;
          shard->Clean();
          name = RunName(shard->next_run_);
          out = std::make_unique<KeyRunWriter>();
          if (!out->Open(shard->dir_fd_, name + ".tmp",
                         shard->dir_ + "/" + name + ".tmp", identity_.tag)) {
            failure = out->error();
            return;
          }
        }
        out->Add(key);
      });
  if (failure.empty() && shard) finish();
  for (auto& r : readers) {
    if (r->failed()) return Damaged(r->error(), error);
  }
  if (!failure.empty()) {
    if (shard) shard->Leave();
    *error = failure;
    return false;
  }
  for (const Run& r : runs_) obsolete_.push_back(r.name);
  runs_.clear();
  return true;
}

bool StateStore::CommitShards(std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  RecordOutput();
  if (!exists_ && !made_manifest_ && !FirstManifest(error)) return false;
  // Each shard that changed: its MANIFEST.next, one generation on. (A
  // shard the state never wrote needs none: its record says generation 0.)
  for (auto& shard : shards_) {
    const bool changed = shard->new_keys_ > 0 || !shard->obsolete_.empty() ||
                         shard->flushed_ || shard->force_prepare_ ||
                         shard->merge_all_;
    if (!changed || shard->prepared_) continue;
    if (!shard->Enter(error) || !shard->ReadShard(error)) return false;
    shard->Clean();
    const bool prepared = shard->PrepareShard(error);
    shard->Leave();
    if (!prepared) return false;
  }
  std::vector<std::string> group;  // every file the commit wrote
  for (auto& shard : shards_) {
    if (!shard->prepared_) continue;
    const std::string name = ShardDir(shard->place_);
    for (const std::string& file : shard->unsynced_) {
      // A new run merged away before the commit is never named by it.
      if (std::find(shard->obsolete_.begin(), shard->obsolete_.end(), file) ==
          shard->obsolete_.end())
        group.push_back(name + "/" + file);
    }
    group.push_back(name);
  }
  if (exists_ && group.empty() && !records_stale_ && output_.empty() &&
      new_keys_ == 0 && obsolete_.empty())
    return true;  // nothing new
  if (!durable::SyncAll(dir_fd_, dir_, group, error)) return false;
  durable::CrashPoint("shards-prepared");
  const std::vector<ShardRecord> recorded = records_;
  records_.resize(shard_count_);
  for (size_t i = 0; i < shards_.size(); ++i) records_[i] = shards_[i]->record_;
  ++generation_;
  if (!Publish(error)) {
    if (!published_) {
      --generation_;
      records_ = recorded;
    }
    return false;
  }
  // Decided: the shards' new files are the state's whatever happens next.
  for (auto& shard : shards_) {
    if (shard->prepared_) shard->published_ = true;
  }
  for (auto& shard : shards_) {
    if (shard->prepared_ && !shard->Apply(error)) return false;
  }
  commit_seconds_ = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return true;
}

bool StateStore::CompactAll(std::string* error) {
  if (!shards_.empty()) {  // the top's keys to their shards; each merges
    if (!Flush(error)) return false;
    for (auto& shard : shards_) shard->merge_all_ = shard->exists_;
    return CommitShards(error);
  }
  if (runs_.size() < 2) return true;
  ++generation_;
  return Compact(true, error) && Publish(error);
}

bool StateStore::Publish(std::string* error) {
  // The runs' names must be durable before a manifest names them.
  if (!durable::SyncDirectory(dir_fd_, dir_, error)) return false;
  durable::CrashPoint("before-manifest");
  const std::string manifest = Manifest();
  if (!durable::ReplaceFile(dir_fd_, dir_, "MANIFEST", manifest, error))
    return false;
  published_ = true;
  durable::CrashPoint("manifest-named");
  if (!durable::SyncDirectory(dir_fd_, dir_, error)) return false;
  exists_ = true;
  manifest_bytes_ = manifest.size();
  for (const std::string& name : obsolete_) {
    if (defer_removals_) {
      removed_.push_back(name);
    } else {
      unlinkat(dir_fd_, name.c_str(), 0);
    }
  }
  obsolete_.clear();
  durable::CrashPoint("committed");
  return true;
}

bool StateStore::Verify(std::string* error) {
  for (auto& shard : shards_) {
    if (!shard->exists_) continue;  // never written (generation 0)
    const bool verified = shard->Enter(error) && shard->Verify(error);
    shard->Leave();
    if (!verified) return false;
  }
  for (const Run& r : runs_) {
    KeyRunReader reader;
    if (!reader.Open(dir_fd_, r.name, dir_ + "/" + r.name, identity_.tag))
      return Damaged(reader.error(), error);
    uint64_t key = 0, n = 0;
    while (reader.Next(&key)) ++n;
    if (reader.failed()) return Damaged(reader.error(), error);
    if (n != r.keys)
      return Damaged(r.name + " decodes to another key count", error);
  }
  return true;
}

}  // namespace uriscan
