// SPDX-License-Identifier: MIT
// libFuzzer harness for the files of a `dedup --state` directory. The first
// byte says whether the input is a MANIFEST or a key run (bit 0), and
// whether an entry of another kind is planted beside it (bit 1): a FIFO, a
// directory, a symbolic link to a file outside the state or a stray regular
// file (bits 2-3), under one of the names a state uses (bits 4-6). The
// files are read as `uriscan state --verify` reads them, then updated as a
// `dedup --state` run does. Damage must be an error, never a crash, a hang
// or an early end taken for a whole run; a link's target is never written;
// an update that commits leaves a state that verifies with every key of
// before and the new ones.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "src/store/key_runs.h"
#include "src/store/state_store.h"

namespace {

// A fresh directory for the state, and beside it the file planted links
// lead to.
const std::string& Root() {
  static const std::string root = [] {
    char tmpl[] = "/tmp/uriscan_state_fuzz_XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  return root;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  unlink(path.c_str());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    std::abort();
}

std::string ReadFile(const std::string& path) {
  std::string text;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char block[4096];
    size_t n;
    while ((n = std::fread(block, 1, sizeof block, f)) > 0) text.append(block, n);
    std::fclose(f);
  }
  return text;
}

// Empties `dir` (its entries are files, FIFOs, links or empty directories).
void Empty(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = dir + "/" + name;
      if (unlink(path.c_str()) != 0) rmdir(path.c_str());
    }
    closedir(d);
  }
}

void Plant(const std::string& dir, int kind, const std::string& name) {
  const std::string path = dir + "/" + name;
  unlink(path.c_str());
  switch (kind) {
    case 0: mkfifo(path.c_str(), 0600); break;
    case 1: mkdir(path.c_str(), 0700); break;
    case 2: (void)!symlink((Root() + "/target").c_str(), path.c_str()); break;
    default: WriteFile(path, reinterpret_cast<const uint8_t*>("x"), 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string dir = Root() + "/state";
  mkdir(dir.c_str(), 0700);
  Empty(dir);
  const std::string target = Root() + "/target";
  WriteFile(target, reinterpret_cast<const uint8_t*>("outside"), 7);
  const std::string run = dir + "/run-000001.keys";
  if (data[0] & 1) {
    // A key run, read with the profile tag its header names, so the
    // decoder itself is reached.
    WriteFile(run, data + 1, size - 1);
    uint64_t tag = 0;
    if (size >= 1 + 24) std::memcpy(&tag, data + 1 + 16, 8);
    uriscan::KeyRunReader reader;
    if (reader.Open(run, tag)) {
      uint64_t key = 0, last = 0, n = 0;
      while (reader.Next(&key)) {
        if (n++ > 0 && key <= last) std::abort();  // keys must increase
        last = key;
      }
      if (!reader.failed() && n != reader.header().keys) std::abort();
    }
    return 0;
  }
  WriteFile(dir + "/MANIFEST", data + 1, size - 1);
  if (data[0] & 2) {
    static const char* const kNames[] = {
        "MANIFEST", "LOCK", "run-000001.keys", "run-000002.keys",
        "MANIFEST.tmp", "run-000002.keys.tmp", "run-000003.keys",
        "run-000009.keys.tmp"};
    Plant(dir, (data[0] >> 2) & 3, kNames[(data[0] >> 4) & 7]);
  }
  uriscan::StateStore::Identity identity;
  uint64_t keys_before = 0;
  {
    uriscan::StateStore state;
    std::string error;
    if (!state.OpenForReading(dir, &error) || !state.Verify(&error)) {
      if (ReadFile(target) != "outside") std::abort();
      return 0;
    }
    identity = state.identity();
    keys_before = state.keys();
  }
  // An update of what read as a whole state: three new keys.
  bool committed = false;
  {
    uriscan::StateStore state;
    std::string error;
    if (state.OpenForUpdate(dir, identity, &error) &&
        state.BeginLookups(&error)) {
      for (uint64_t key : {uint64_t{1} << 62, (uint64_t{1} << 62) + 7,
                           ~uint64_t{0} - 1})
        state.Offer(key);
      committed = state.EndLookups(&error) && state.Commit(&error);
    }
  }
  if (ReadFile(target) != "outside") std::abort();
  if (committed) {
    uriscan::StateStore state;
    std::string error;
    if (!state.OpenForReading(dir, &error, /*checksums=*/true) ||
        !state.Verify(&error) || state.keys() < keys_before ||
        state.keys() > keys_before + 3)
      std::abort();
  }
  return 0;
}
