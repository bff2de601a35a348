// SPDX-License-Identifier: MIT
// SeenState: the manifest, the lock, lookups, commit and compaction.
#include "src/store/seen_state.h"

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
#include <mutex>
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

std::string SeenState::Identity::Describe() const {
  std::string s = "'" + profile + "' (version " + std::to_string(version);
  if (!tracking.empty()) s += ", tracking " + tracking;
  return s + ")";
}

SeenState::SeenState() = default;

SeenState::~SeenState() {
  shards_.clear();  // each abandons or keeps its own files first
  readers_.clear();
  if (writer_) {
    writer_.reset();
    unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
  }
  if (update_ && !published_) Abandon();
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the flock
  if (dir_fd_ >= 0) close(dir_fd_);
}

// Names only are removed (unlink, rmdir): no link is followed, nothing
// outside the directory is touched, and a directory is removed only when
// this update made it and it is empty again.
void SeenState::Abandon() {
  if (dir_fd_ < 0) return;
  for (const std::string& name : made_runs_)
    unlinkat(dir_fd_, name.c_str(), 0);
  if (made_manifest_) unlinkat(dir_fd_, "MANIFEST", 0);
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

uint64_t SeenState::keys() const {
  uint64_t n = 0;
  for (const auto& shard : shards_) n += shard->keys();
  for (const Run& r : runs_) n += r.keys;
  return n;
}

uint64_t SeenState::written_bytes() const {
  uint64_t n = written_bytes_;
  for (const auto& shard : shards_) n += shard->written_bytes();
  return n;
}

uint64_t SeenState::rewritten_bytes() const {
  uint64_t n = rewritten_bytes_;
  for (const auto& shard : shards_) n += shard->rewritten_bytes();
  return n;
}

uint64_t SeenState::run_bytes() const {
  uint64_t n = 0;
  for (const auto& shard : shards_) n += shard->run_bytes() + shard->manifest_bytes();
  for (const Run& r : runs_) n += r.bytes;
  return n;
}

std::string SeenState::RunName(uint64_t number) const {
  char text[32];
  std::snprintf(text, sizeof text, "run-%06llu.keys",
                static_cast<unsigned long long>(number));
  return text;
}

bool SeenState::Damaged(const std::string& what, std::string* error) const {
  *error = "state " + dir_ + " is damaged: " + what +
           " (it is left as it is; restore it or start another directory)";
  return false;
}

bool SeenState::Lock(bool exclusive, std::string* error) {
  const std::string path = dir_ + "/LOCK";
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
    if (flock(lock_fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 ||
        fstat(lock_fd_, &st) != 0) {
      *error = errno == EWOULDBLOCK
                   ? "state " + dir_ +
                         " is in use: another uriscan run holds its lock (" +
                         path + "); try again when it has finished"
                   : "cannot lock " + path + ": " + std::strerror(errno);
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
bool SeenState::CheckOwnership(std::string* error) const {
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

bool SeenState::ReadManifest(std::string* error) {
  return ReadManifestFile("MANIFEST", error);
}

bool SeenState::ReadManifestFile(const char* file, std::string* error) {
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
    for (const std::string& name : ListDir(dir_fd_)) {
      if (IsRunName(name))
        return Damaged("it holds key runs (" + name + ") but no MANIFEST",
                       error);
    }
    exists_ = false;
    return true;
  }
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
  uint64_t sum = 0;
  if (text.size() != at + 9 + 16 + 1 || text.back() != '\n' ||
      !ParseU64(text.substr(at + 9, 16), 16, &sum) ||
      sum != XXH3_64bits(text.data(), at))
    return Damaged("MANIFEST has a bad checksum (truncated or altered)",
                   error);
  std::istringstream lines(text.substr(0, at));
  std::string line;
  if (!std::getline(lines, line) ||
      (line != kManifestHead && line != kManifestHeadV1))
    return Damaged("MANIFEST is of an unknown format", error);
  format_ = line == kManifestHead ? 2 : 1;
  int seen = 0;
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
  if (shard_count_ > 1 && (!runs_.empty() || shard_of_ != 0))
    return Damaged("MANIFEST names shards and runs (or is a shard's)", error);
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

bool SeenState::CheckRuns(bool checksums, std::string* error) {
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

bool SeenState::IsLeftover(const std::string& name) const {
  const bool tmp = name.size() > 4 &&
                   name.compare(name.size() - 4, 4, ".tmp") == 0 &&
                   (name.rfind("run-", 0) == 0 ||
                    name.rfind("MANIFEST", 0) == 0);
  const bool orphan =
      IsRunName(name) &&
      std::none_of(runs_.begin(), runs_.end(),
                   [&](const Run& r) { return r.name == name; });
  return tmp || orphan;
}

void SeenState::RemoveLeftovers() {
  for (const std::string& name : ListDir(dir_fd_)) {
    if (IsLeftover(name)) unlinkat(dir_fd_, name.c_str(), 0);
  }
}

bool SeenState::OpenForUpdate(const std::string& dir, const Identity& identity,
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
  if (!CheckOwnership(error) || !Lock(true, error) || !ReadManifest(error) ||
      !CheckFormat(error))
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
  if (shard_of_ > 0 && !SettleNext(error)) return false;
  if (!exists_) {
    shard_count_ = std::max<uint32_t>(shards, 1);
    shard_bits_ = __builtin_ctz(shard_count_);
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
  if (shard_count_ > 1 && !OpenShards(identity_, /*update=*/true,
                                      /*checksums=*/false, error))
    return false;
  RemoveLeftovers();
  return true;
}

void SeenState::SetOutput(const std::string& tmp, const std::string& final,
                          uint64_t digest) {
  output_tmp_ = tmp;
  output_ = final;
  output_digest_ = digest;
}

const SeenState::Committed* SeenState::FindCommitted(
    const std::string& path) const {
  for (auto c = committed_.rbegin(); c != committed_.rend(); ++c) {
    if (c->path == path) return &*c;
  }
  return nullptr;
}

int SeenState::Level(uint64_t keys) {
  int level = 0;
  for (uint64_t top = kLevelBase; keys > top && level < 40; top *= kLevelFactor)
    ++level;
  return level;
}

// A run committed with an output is renamed into place after the commit;
// killed between the two, its lines wait in the temporary file the
// MANIFEST names, and are put in place here, before anything else.
bool SeenState::CompleteOutput(std::string* error) {
  if (committed_output_.empty() || committed_output_tmp_.empty()) return true;
  struct stat st;
  if (lstat(committed_output_tmp_.c_str(), &st) != 0) return true;  // done
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

bool SeenState::OpenForReading(const std::string& dir, std::string* error,
                               bool checksums) {
  dir_ = dir;
  dir_fd_ = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    *error = "no state directory " + dir;
    return false;
  }
  if (!Lock(false, error) || !ReadManifest(error) || !CheckFormat(error))
    return false;
  if (!exists_) {  // no MANIFEST and no key runs (ReadManifest)
    *error = dir + " is not a state: it has no MANIFEST (no dedup --state=" +
             dir + " run has finished there)";
    return false;
  }
  // A shard whose commit was decided but not completed: read as it will be.
  if (shard_of_ > 0 && !SettleNext(error)) return false;
  if (shard_count_ > 1)
    return OpenShards(identity_, /*update=*/false, checksums, error);
  return CheckRuns(checksums, error);
}

std::vector<SeenState::Unlisted> SeenState::UnlistedFiles() const {
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

bool SeenState::BeginLookups(std::string* error) {
  if (!shards_.empty()) {
    for (auto& shard : shards_) {
      if (!shard->BeginLookups(error)) return false;
    }
    return true;
  }
  // Largest (oldest) first: a key seen before is most likely there, and
  // the runs after it are then not asked.
  for (auto r = runs_.begin(); r != runs_.end(); ++r) {
    readers_.push_back(std::make_unique<KeyRunReader>());
    if (!readers_.back()->Open(dir_fd_, r->name, dir_ + "/" + r->name,
                               identity_.tag))
      return Damaged(readers_.back()->error(), error);
  }
  pending_ = RunName(next_run_);
  writer_ = std::make_unique<KeyRunWriter>();
  if (!writer_->Open(dir_fd_, pending_ + ".tmp", dir_ + "/" + pending_ + ".tmp",
                     identity_.tag)) {
    *error = writer_->error();
    return false;
  }
  return true;
}

bool SeenState::Offer(uint64_t key) {
  if (!shards_.empty()) return shards_[ShardOf(key)]->Offer(key);
  if (lookup_failed_) return false;
  if (shard_of_ > 0 &&
      (key >> (64 - __builtin_ctz(shard_of_))) != shard_index_) {
    out_of_shard_ = lookup_failed_ = true;  // routed to the wrong shard
    return false;
  }
  for (auto& reader : readers_) {
    if (reader->Contains(key)) return false;
    if (reader->failed()) {
      lookup_failed_ = true;
      return false;
    }
  }
  writer_->Add(key);
  ++new_keys_;
  return true;
}

bool SeenState::EndLookups(std::string* error) {
  for (auto& shard : shards_) {
    if (!shard->EndLookups(error)) return false;
    lookup_bytes_ += shard->lookup_bytes();
    new_keys_ += shard->new_keys();
  }
  if (!shards_.empty()) return true;
  if (out_of_shard_) {
    *error = "state " + dir_ + " is " + ShardName() +
             " of a sharded state, and this run has keys of other shards: "
             "give each shard only its own lines (those whose 64-bit key has "
             "the shard's number in its top bits), or use the whole state";
    return false;
  }
  for (auto& reader : readers_) {
    if (reader->failed()) return Damaged(reader->error(), error);
    lookup_bytes_ += reader->bytes_read();
  }
  readers_.clear();
  if (!writer_->Finish()) {
    *error = writer_->error();
    return false;
  }
  return true;
}

// Merges `sources` into the new run `name` (its temporary name first).
template <class Reader>
bool SeenState::MergeInto(std::vector<std::unique_ptr<Reader>>* readers,
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
  if (!out.Finish()) {
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
  *keys = out.keys();
  *bytes = out.file_bytes();
  return true;
}

// The runs from `from` on are replaced by `merged` (made by MergeInto).
void SeenState::ReplaceRuns(size_t from, const Run& merged) {
  ++next_run_;
  compacted_keys_ = merged.keys;
  rewritten_bytes_ += merged.bytes;
  for (size_t i = from; i < runs_.size(); ++i) obsolete_.push_back(runs_[i].name);
  runs_.resize(from);
  runs_.push_back(merged);
}

bool SeenState::Compact(bool all, std::string* error) {
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

bool SeenState::CheckFormat(std::string* error) const {
  if (!exists_ || format_ == 2 || upgrading_) return true;
  *error = "state " + dir_ +
           " was written by an earlier uriscan (state format 1, runs "
           "without block indexes); convert it once with `uriscan state " +
           dir_ + " --upgrade` (crash-safe, in place), or build it again";
  return false;
}

bool SeenState::Upgrade(const std::string& dir, std::string* error) {
  upgrading_ = true;
  if (!OpenForUpdate(dir, Identity{}, error)) return false;
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

std::string SeenState::Manifest(bool with_output) const {
  std::string m = std::string(kManifestHead) + "\n";
  m += "profile " + identity_.profile + "\n";
  m += "profile-version " + std::to_string(identity_.version) + "\n";
  m += "tracking " + (identity_.tracking.empty() ? "-" : identity_.tracking) +
       "\n";
  m += "profile-tag " + Hex(identity_.tag) + "\n";
  m += "next " + std::to_string(next_run_) + "\n";
  m += "keys " + std::to_string(keys()) + "\n";
  if (shard_count_ > 1) m += "shards " + std::to_string(shard_count_) + "\n";
  if (shard_of_ > 0)
    m += "shard " + std::to_string(shard_index_) + " " +
         std::to_string(shard_of_) + "\n";
  if (generation_ > 0) m += "generation " + std::to_string(generation_) + "\n";
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

void SeenState::RecordOutput() {
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
bool SeenState::FirstManifest(std::string* error) {
  if (!durable::ReplaceFile(dir_fd_, dir_, "MANIFEST",
                            Manifest(/*with_output=*/false), error))
    return false;
  made_manifest_ = true;
  return durable::SyncDirectory(dir_fd_, dir_, error);
}

// The new run under its own name, then the merges of the policy.
bool SeenState::NameNewRun(std::string* error) {
  const std::string tmp = pending_ + ".tmp";
  durable::CrashPoint("run-unnamed");
  if (durable::RenameNoReplace(dir_fd_, tmp, dir_fd_, pending_) != 0) {
    *error = "cannot rename " + dir_ + "/" + tmp + ": " + std::strerror(errno);
    return false;
  }
  made_runs_.push_back(pending_);
  runs_.push_back(Run{pending_, writer_->keys(), writer_->file_bytes()});
  written_bytes_ += writer_->file_bytes();
  ++next_run_;
  writer_.reset();
  durable::CrashPoint("run-named");
  return Compact(false, error);
}

bool SeenState::Commit(std::string* error) {
  if (!shards_.empty()) return CommitShards(error);
  const auto start = std::chrono::steady_clock::now();
  RecordOutput();
  if (writer_ && new_keys_ > 0) {
    if (!exists_ && !FirstManifest(error)) return false;
    if (!NameNewRun(error)) return false;
  } else if (writer_) {
    writer_.reset();
    unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
    // Nothing new: the state stays as it is, but for the output it names.
    if (exists_ && output_.empty()) return true;
  }
  if (!Publish(error)) return false;
  commit_seconds_ = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return true;
}

// ---- Sharded states ----
//
// A sharded commit is decided by the top MANIFEST: each shard first writes
// its new run and merges, then MANIFEST.next (its MANIFEST to be, with the
// commit's generation); then the top MANIFEST, with that generation, is
// renamed into place (the commit point); then each shard's MANIFEST.next
// is renamed to MANIFEST. A shard opened later with a MANIFEST.next takes
// it when its generation is the top MANIFEST's (the commit was decided),
// and removes it otherwise (it was not): SettleNext().

std::string SeenState::ShardName() const {
  if (shard_of_ == 0) return "";
  return "shard " + std::to_string(shard_index_) + " of " +
         std::to_string(shard_of_);
}

bool SeenState::OpenShards(const Identity& identity, bool update,
                           bool checksums, std::string* error) {
  for (uint32_t i = 0; i < shard_count_; ++i) {
    auto shard = std::make_unique<SeenState>();
    shard->shard_index_ = i;
    shard->shard_of_ = shard_count_;
    const std::string path = dir_ + "/" + ShardDir(i);
    if (update ? !shard->OpenForUpdate(path, identity, error)
               : !shard->OpenForReading(path, error, checksums))
      return false;
    if (shard->exists_ &&
        (shard->shard_index_ != i || shard->shard_of_ != shard_count_ ||
         shard->shard_count_ != 1 || shard->identity_.tag != identity_.tag))
      return Damaged(path + "/MANIFEST is not that of shard " +
                         std::to_string(i) + " of " +
                         std::to_string(shard_count_) + " of this state",
                     error);
    shards_.push_back(std::move(shard));
  }
  return true;
}

bool SeenState::SettleNext(std::string* error) {
  struct stat st;
  if (fstatat(dir_fd_, "MANIFEST.next", &st, AT_SYMLINK_NOFOLLOW) != 0)
    return true;
  uint64_t decided = 0;  // the top MANIFEST's generation
  {
    SeenState top;
    top.dir_ = dir_ + "/..";
    top.dir_fd_ = openat(dir_fd_, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top.dir_fd_ < 0 || !top.ReadManifest(error)) return false;
    if (!top.exists_ || top.shard_count_ != shard_of_)
      return Damaged("its MANIFEST.next has no sharded state above it", error);
    decided = top.generation_;
  }
  SeenState next;
  next.dir_ = dir_;
  next.dir_fd_ = dup(dir_fd_);
  next.shard_index_ = shard_index_;
  next.shard_of_ = shard_of_;
  if (!next.ReadManifestFile("MANIFEST.next", error)) return false;
  const bool taken = next.exists_ && next.generation_ == decided && decided > 0;
  if (!update_) {  // a reader sees the state as the next update leaves it
    return taken ? ReadManifestFile("MANIFEST.next", error) : true;
  }
  if (!taken) {
    unlinkat(dir_fd_, "MANIFEST.next", 0);
    return true;
  }
  if (renameat(dir_fd_, "MANIFEST.next", dir_fd_, "MANIFEST") != 0) {
    *error = "cannot rename " + dir_ + "/MANIFEST.next: " + std::strerror(errno);
    return false;
  }
  return durable::SyncDirectory(dir_fd_, dir_, error) && ReadManifest(error);
}

bool SeenState::Prepare(uint64_t generation, std::string* error) {
  // Every shard of a committed state has a MANIFEST, new keys or none.
  if (!exists_ && !FirstManifest(error)) return false;
  if (writer_ && new_keys_ > 0) {
    if (!NameNewRun(error)) return false;
  } else if (writer_) {
    writer_.reset();
    unlinkat(dir_fd_, (pending_ + ".tmp").c_str(), 0);
  }
  generation_ = generation;
  // The runs' names are durable before a MANIFEST names them.
  return durable::SyncDirectory(dir_fd_, dir_, error) &&
         durable::ReplaceFile(dir_fd_, dir_, "MANIFEST.next", Manifest(),
                              error) &&
         durable::SyncDirectory(dir_fd_, dir_, error);
}

bool SeenState::Apply(std::string* error) {
  if (renameat(dir_fd_, "MANIFEST.next", dir_fd_, "MANIFEST") != 0) {
    *error = "cannot rename " + dir_ + "/MANIFEST.next: " + std::strerror(errno);
    return false;
  }
  durable::CrashPoint("shard-applied");
  if (!durable::SyncDirectory(dir_fd_, dir_, error)) return false;
  exists_ = true;
  for (const std::string& name : obsolete_) unlinkat(dir_fd_, name.c_str(), 0);
  obsolete_.clear();
  return true;
}

bool SeenState::CommitShards(std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  RecordOutput();
  // A new state's top MANIFEST comes first: shards are never without one.
  if (!exists_ && !FirstManifest(error)) return false;
  const uint64_t generation = generation_ + 1;
  for (auto& shard : shards_) {
    if (!shard->Prepare(generation, error)) return false;
  }
  durable::CrashPoint("shards-prepared");
  generation_ = generation;
  if (!Publish(error)) {
    if (!published_) generation_ = generation - 1;
    return false;
  }
  // Decided: the shards' new files are the state's whatever happens next.
  for (auto& shard : shards_) shard->published_ = true;
  for (auto& shard : shards_) {
    if (!shard->Apply(error)) return false;
  }
  commit_seconds_ = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return true;
}

bool SeenState::CompactAll(std::string* error) {
  for (auto& shard : shards_) {  // no key moves: each shard commits alone
    if (!shard->CompactAll(error)) return false;
  }
  if (runs_.size() < 2) return true;
  return Compact(true, error) && Publish(error);
}

bool SeenState::Publish(std::string* error) {
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
  for (const std::string& name : obsolete_)
    unlinkat(dir_fd_, name.c_str(), 0);
  obsolete_.clear();
  durable::CrashPoint("committed");
  return true;
}

bool SeenState::Verify(std::string* error) {
  for (auto& shard : shards_) {
    if (!shard->Verify(error)) return false;
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
