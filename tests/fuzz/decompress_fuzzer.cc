// SPDX-License-Identifier: MIT
// libFuzzer harness for the gzip and zstd readers (tools/fuzz-inputs.sh
// gives it a dictionary of their magic bytes): whatever the bytes, Sniff()
// and the Decoder end with output or an error, never a crash or a hang, and
// a bomb is read only as far as the harness asks.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "src/ingest/decompress.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using uriscan::ingest::Compression;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Compression compression = uriscan::ingest::Sniff(bytes.substr(0, 4));
  if (compression == Compression::kNone) return 0;
  uriscan::ingest::CompressedSource source;
  // Half as bytes read while sniffing, half as a mapped file: both paths.
  source.head.assign(bytes.substr(0, size / 2));
  source.mapped = bytes.substr(size / 2);
  uriscan::ingest::Decoder decoder(compression, std::move(source));
  char buf[4096];
  size_t total = 0;
  while (const size_t got = decoder.Read(buf, sizeof buf)) {
    total += got;
    if (total > (size_t{16} << 20)) break;  // a bomb: stop, as a reader may
  }
  if (total <= (size_t{16} << 20) && !decoder.error().empty() &&
      decoder.error().find("compressed byte") == std::string::npos)
    std::abort();  // every damage names where it lies
  return 0;
}
