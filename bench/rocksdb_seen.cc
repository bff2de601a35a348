// SPDX-License-Identifier: MIT
// The seen-set of `uriscan dedup --state` done with RocksDB, as a crawler
// that keeps its seen URLs in RocksDB would: the peer of
// tools/bench-state.sh. `rocksdb_seen DB < lines` reads every line, keys it
// as dedup does (the 64-bit fingerprint of the scheme profile, the same
// batch scan), asks RocksDB for the run's distinct keys with MultiGet,
// writes the lines whose key it lacks (and was not earlier in the run) to
// stdout, and adds their keys in one synced WriteBatch (8-byte keys, empty
// values; Bloom filter of 10 bits a key, ZSTD blocks, the options a
// careful user picks). Invalid lines are skipped, as dedup --state does.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "uriscan/fingerprint.h"
#include "uriscan/spans.h"
#include "uriscan/uriscan.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rocksdb_seen DB < lines\n");
    return 2;
  }
  // The whole input: the benchmark's days are at most 10^6 lines here.
  std::string text;
  char block[1 << 16];
  ssize_t got;
  while ((got = read(0, block, sizeof block)) > 0)
    text.append(block, static_cast<size_t>(got));
  uriscan::OwnedBatch batch;
  if (!uriscan::BatchFromLines(text, &batch)) return 2;
  uriscan::ComponentSpans spans;
  uriscan::Scan(batch.view(), &spans);
  const uriscan::Fingerprinter fingerprinter(uriscan::Profile::kScheme);
  std::vector<uint64_t> keys(batch.size());
  fingerprinter.Batch64(batch.view(), spans, &keys);

  rocksdb::Options options;
  options.create_if_missing = true;
  options.compression = rocksdb::kZSTD;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, argv[1], &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "rocksdb_seen: %s\n", s.ToString().c_str());
    return 2;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  // The run's distinct valid keys, asked at once, in key order.
  std::vector<uint64_t> distinct;
  for (uint64_t k : keys)
    if (k != 0) distinct.push_back(k);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::string> bytes(distinct.size());
  std::vector<rocksdb::Slice> slices;
  for (size_t i = 0; i < distinct.size(); ++i) {
    uint64_t big = __builtin_bswap64(distinct[i]);  // byte order = key order
    bytes[i].assign(reinterpret_cast<const char*>(&big), 8);
    slices.emplace_back(bytes[i]);
  }
  std::vector<std::string> values(distinct.size());
  std::vector<rocksdb::Status> found =
      db->MultiGet(rocksdb::ReadOptions(), slices, &values);
  std::vector<char> fresh(distinct.size());
  rocksdb::WriteBatch writes;
  for (size_t i = 0; i < distinct.size(); ++i) {
    if (found[i].IsNotFound()) {
      fresh[i] = 1;
      writes.Put(slices[i], rocksdb::Slice());
    } else if (!found[i].ok()) {
      std::fprintf(stderr, "rocksdb_seen: %s\n", found[i].ToString().c_str());
      return 2;
    }
  }
  // The first line of each new key, in input order.
  std::string out;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (keys[i] == 0) continue;
    const size_t at = static_cast<size_t>(
        std::lower_bound(distinct.begin(), distinct.end(), keys[i]) -
        distinct.begin());
    if (!fresh[at]) continue;
    fresh[at] = 0;
    out.append(batch.view().Get(i));
    out.push_back('\n');
  }
  rocksdb::WriteOptions sync;
  sync.sync = true;
  s = db->Write(sync, &writes);
  if (!s.ok()) {
    std::fprintf(stderr, "rocksdb_seen: %s\n", s.ToString().c_str());
    return 2;
  }
  return std::fwrite(out.data(), 1, out.size(), stdout) == out.size() ? 0 : 1;
}
