// SPDX-License-Identifier: MIT
// uriscan params: LINE<TAB>NAME<TAB>VALUE per query parameter, decoded as
// form data unless --raw (docs/cli.md, "params").
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string_view>
#include <string>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "uriscan/analytics.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  params [--raw]              LINE<TAB>NAME<TAB>VALUE per query\n"
    "                              parameter, in order: the query split on\n"
    "                              '&', each field at its first '=', empty\n"
    "                              fields skipped; names and values decoded\n"
    "                              as form data ('+' is a space, then %HH)\n"
    "                              unless --raw; text in PostgreSQL's COPY\n"
    "                              format (\\\\ \\t \\n \\r escaped)\n"
    "      [--decode=utf8|bytes]   utf8 (default): an escape of no UTF-8\n"
    "                              character stays as written, so every\n"
    "                              value is UTF-8; bytes: the bytes as they\n"
    "                              are. %00 stays %00 in both\n";

// A chunk's parameters, per worker thread, a window at a time (so that a
// line of millions of parameters needs no column as long as it): the
// window's spans, and with decoding its names and values back to back.
struct ChunkParams {
  QueryParamWindows windows;
  QueryParams params;  // the current window
  size_t next = 0;     // its first parameter not yet written
  std::vector<char> names, values;
  std::vector<uint32_t> name_offsets, value_offsets;
  const char* data = nullptr;  // the chunk's bytes
};
thread_local ChunkParams chunk_params;

class ParamsRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddFlag(app, "--raw", [this] { raw_ = true; });
    AddDecodeOption(app, &decode_);
  }
  bool NumberedRecords() const override { return true; }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    ChunkParams& p = chunk_params;
    p.data = rows.data;
    p.windows.Reset(rows.data, c->spans);
    p.params.Clear();
    p.next = 0;
    if (!WholeChunk(*c, true)) return true;
    // The records straight from the parameters' columns, no Row() per row.
    CountWholeChunk(c);
    // (An invalid row has no parameters: analytics.h.)
    uint32_t row = UINT32_MAX;
    char digits[24];
    size_t digits_size = 0;
    while (NextWindow()) {
      const QueryParams& q = p.params;
      for (size_t k = 0; k < q.size(); ++k) {
        if (q.row[k] != row) {
          row = q.row[k];
          digits_size = static_cast<size_t>(
              std::to_chars(digits, digits + sizeof(digits),
                            c->first_line + row)
                  .ptr -
              digits);
        }
        AppendParam(k, std::string_view(digits, digits_size), &c->out);
        c->SpillOut();
      }
      p.next = q.size();
    }
    return false;
  }
  // True with a parameter left in the current window, taking the next
  // window (and decoding it) when this one is written.
  bool NextWindow() const {
    ChunkParams& p = chunk_params;
    if (p.next < p.params.size()) return true;
    if (!p.windows.Next(&p.params)) return false;
    p.next = 0;
    if (!raw_) {
      const QueryParams& q = p.params;
      DecodeSpans(p.data, q.name_begin.data(), q.name_end.data(), q.size(),
                  Decoding::kForm, &p.names, &p.name_offsets, decode_);
      DecodeSpans(p.data, q.value_begin.data(), q.value_end.data(), q.size(),
                  Decoding::kForm, &p.values, &p.value_offsets, decode_);
    }
    return true;
  }
  // LINE<TAB>NAME<TAB>VALUE of parameter k.
  void AppendParam(size_t k, std::string_view line, std::string* out) const {
    const ChunkParams& p = chunk_params;
    const QueryParams& q = p.params;
    out->append(line);
    out->push_back('\t');
    if (raw_) {
      AppendPgText({p.data + q.name_begin[k], q.name_end[k] - q.name_begin[k]},
                   out);
      out->push_back('\t');
      AppendPgText(
          {p.data + q.value_begin[k], q.value_end[k] - q.value_begin[k]}, out);
    } else {
      AppendPgText({p.names.data() + p.name_offsets[k],
                    p.name_offsets[k + 1] - p.name_offsets[k]},
                   out);
      out->push_back('\t');
      AppendPgText({p.values.data() + p.value_offsets[k],
                    p.value_offsets[k + 1] - p.value_offsets[k]},
                   out);
    }
    out->push_back('\n');
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    ChunkParams& p = chunk_params;
    if (!uri.valid()) {
      c->Diagnose(i, uri.error());
      // An over-long line the scan split is no record: skip its parameters.
      while (NextWindow() && p.params.row[p.next] == i) ++p.next;
      return true;
    }
    char digits[24];
    const auto r =
        std::to_chars(digits, digits + sizeof(digits), c->first_line + i);
    for (; NextWindow() && p.params.row[p.next] == i; ++p.next) {
      AppendParam(p.next, std::string_view(digits, r.ptr - digits), &c->out);
      c->SpillOut();
    }
    return true;
  }

 private:
  bool raw_ = false;
  DecodedBytes decode_ = DecodedBytes::kUtf8;  // --decode
};

}  // namespace

const CommandSpec kParamsCommand = {
    "params", "[--raw] [OPTIONS] [FILE...]", [] { return std::string(kHelp); },
    true, false, MakeRun<ParamsRun>};

}  // namespace cli
}  // namespace uriscan
