// SPDX-License-Identifier: MIT
// libFuzzer harness for the files of a `dedup --state` directory: the
// first byte says whether the input is a MANIFEST or a key run. Either is
// written into a fresh directory and read as `uriscan state --verify` reads
// it; damage must be an error, never a crash, a hang or an early end
// taken for a whole run.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "src/store/key_runs.h"
#include "src/store/seen_state.h"

namespace {

const std::string& Dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/uriscan_state_fuzz_XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  return dir;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  unlink(path.c_str());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string& dir = Dir();
  const std::string run = dir + "/run-000001.keys";
  unlink((dir + "/MANIFEST").c_str());
  unlink(run.c_str());
  if (data[0] & 1) {
    // A key run, read with the profile tag its header names, so the
    // decoder itself is reached.
    WriteFile(run, data + 1, size - 1);
    uint64_t tag = 0;
    if (size >= 1 + 24) std::memcpy(&tag, data + 1 + 16, 8);
    uriscan::KeyRunReader reader;
    if (reader.Open(run, tag, 4096)) {
      uint64_t key = 0, last = 0, n = 0;
      while (reader.Next(&key)) {
        if (n++ > 0 && key <= last) std::abort();  // keys must increase
        last = key;
      }
      if (!reader.failed() && n != reader.header().keys) std::abort();
    }
  } else {
    WriteFile(dir + "/MANIFEST", data + 1, size - 1);
    uriscan::SeenState state;
    std::string error;
    if (state.OpenForReading(dir, &error)) {
      (void)state.Verify(&error);
    }
  }
  return 0;
}
