// SPDX-License-Identifier: MIT
// uriscan dedup: the first line of each class, exact or by a Bloom filter,
// with a seen-set kept across runs (docs/design.md, "The state"); its
// options, help, checks and run.
#include <CLI/CLI.hpp>
// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/dedup_sink.h"
#include "src/cli/options.h"
#include "src/store/output_file.h"
#include "src/store/state_store.h"
#include "src/store/state_identity.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  dedup [--profile=P]         the first line of each class of lines\n"
    "                              equal under P (default scheme), in\n"
    "                              input order; exact, by 64-bit XXH3 keys\n"
    "      [--keys]                each line as KEY<TAB>LINE (16 hex digits)\n"
    "      [--memory=SIZE]         memory budget, e.g. 512M or 4G (default\n"
    "                              1G); past it, sorted runs of keys go to\n"
    "                              --temp-dir (default $TMPDIR or /tmp)\n"
    "      [--bloom=N]             approximate instead: a Bloom filter for\n"
    "      [--fp-rate=P]           N distinct lines at false-positive rate\n"
    "                              P (default 0.001), which adds layers\n"
    "                              as it fills so the rate stays under P,\n"
    "                              and stops with exit 2 past --memory; a\n"
    "                              false positive drops a line that was new\n"
    "      [--state=DIR]           a seen-set kept in DIR across runs: only\n"
    "                              lines whose class no earlier run with DIR\n"
    "                              saw are written; the run's new classes\n"
    "                              are added to DIR when it ends with exit\n"
    "                              0 (crash-safe; one run at a time). DIR\n"
    "                              keeps one profile: another is an error;\n"
    "                              without --profile, DIR's is taken.\n"
    "                              Invalid lines are not written (they are\n"
    "                              diagnosed and counted) unless\n"
    "                              --on-error=keep is given\n"
    "      [--shards=N]            a new state of N shards (a power of 2 up\n"
    "                              to 4096; default 1): each holds the keys\n"
    "                              with its number in their top bits, with\n"
    "                              runs and a lock of its own, and a run's\n"
    "                              keys are looked up shard by shard on\n"
    "                              --threads threads. Output and answers\n"
    "                              are those of an unsharded state\n"
    "      [--summary=text|json]   json: the summary as one object on\n"
    "                              stderr (docs/cli.md), even with --quiet\n"
    "      [--wait-lock=SECONDS]   a state another run holds is waited for\n"
    "                              up to SECONDS (default 0: refused at\n"
    "                              once, exit 2)\n"
    "      [--output=FILE]         the lines into FILE (a new file), which\n"
    "                              appears whole when the run ends with exit\n"
    "                              0; with --state, together with the\n"
    "                              commit: after a crash, either both or\n"
    "                              neither (the next run completes FILE).\n"
    "                              A FILE a committed run wrote is never\n"
    "                              written again: the same input and\n"
    "                              options again are a no-op (exit 0, a\n"
    "                              note), other input a usage error\n";

// Each row's key (its fingerprint under --profile) on the worker threads;
// the seen-set, which must see the keys in input order, on the main thread.
class DedupRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override;
  int Check() override;

  int Begin(size_t window, std::string* /*out*/) override {
    if (!state_dir_.empty() && !profile_.profile_given &&
        !profile_.crawler_options && !TakeStateProfile())
      return 2;
    fingerprinter_ = std::make_unique<Fingerprinter>(profile_.profile,
                                                     profile_.normalize);
    if (!state_dir_.empty() && !OpenState()) return 2;
    if (!output_name_.empty()) {
      if (const int status = OpenOutput(); status >= 0) return status;
    }
    // --memory bounds the process: the chunks in flight (their text, batch,
    // spans and keys, about 6 bytes per input byte) come off the top.
    DedupSink::Config config = config_;
    const size_t in_flight = window * 6 * opt_.chunk_bytes;
    config.memory = std::max(
        config.memory / 4,
        config.memory > in_flight ? config.memory - in_flight : 0);
    config.state = state_.get();
    config.threads = opt_.threads;
    sink_ = std::make_unique<DedupSink>(config);
    if (sink_->failed()) {  // before any output: the temporary directory
      std::fprintf(stderr, "uriscan: dedup: %s\n", sink_->error().c_str());
      return 2;
    }
    keys_.resize(window);
    return -1;
  }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    // Invalid rows' keys are 0 (fingerprint.h): they are echoed or skipped
    // by Emit(). Only --on-error=fail needs Row() to stop at the first.
    fingerprinter_->Batch64(rows, c->spans, &keys_[c->slot]);
    if (!WholeChunk(*c, true) ||
        (on_error_ == OnError::kFail &&
         AnyInvalid(c->spans.error_kind.data(), c->spans.size())))
      return true;
    CountWholeChunk(c);
    return false;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (uri.valid()) return true;
    c->Diagnose(i, uri.error());
    // The w3lib profile's key of a line w3lib canonicalizes (fingerprint.h):
    // deduplicated as any other, --on-error is for the rest. (A line too
    // long has none: it is not held, its row is empty.)
    uint64_t& key = keys_[c->slot][i];
    if (profile_.profile == Profile::kW3lib &&
        uri.error().kind != ErrorKind::kTooLong && key != 0)
      return true;
    key = 0;  // echoed, or skipped, by Emit()
    return on_error_ != OnError::kFail;
  }
  void Emit(const Chunk& c, std::string* out, Totals* totals) override {
    const std::vector<uint64_t>& keys = keys_[c.slot];
    constexpr size_t kAhead = 16;  // rows between a prefetch and its use
    for (size_t i = 0; i < std::min(c.rows, kAhead); ++i)
      sink_->Prefetch(keys[i]);
    for (size_t i = 0; i < c.rows; ++i) {
      if (i + kAhead < c.rows) sink_->Prefetch(keys[i + kAhead]);
      // An over-long line is not held in memory: an empty line stands in.
      std::string_view line = c.AsRead(
          i, std::string_view(c.input.text.data() + c.spans.uri_begin[i],
                              c.spans.uri_end[i] - c.spans.uri_begin[i]));
      if (c.too_long_line || line.size() > opt_.max_line) line = {};
      if (digest_) {  // --output: the digest of every line, in order
        XXH3_64bits_update(digest_.get(), line.data(), line.size());
        XXH3_64bits_update(digest_.get(), "\n", 1);
      }
      // A rerun into a committed output writes nothing; an invalid line
      // under --on-error=skip is not written.
      if (rerun_ || (keys[i] == 0 && on_error_ == OnError::kSkip)) continue;
      sink_->Row(keys[i], line, out);
    }
    totals->distinct = sink_->distinct();
  }
  bool Halted() const override { return sink_->failed(); }
  bool Finish(Writer* out, Totals* totals) override {
    if (rerun_) return true;
    std::string error;
    const bool finished = sink_->Finish(out, &error);
    if (!finished) {
      out->Flush();
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
    }
    totals->distinct = sink_->distinct();
    return finished;
  }
  // --state: the run's new classes into the state.
  // --output: the lines written, then the state committed (naming the
  // output), then the output put in place; a crash between the last two is
  // completed by the next update (StateStore::CompleteOutput).
  bool Commit() override {
    if (rerun_) return SameAsCommitted();
    std::string error;
    // This input (and options) went to another FILE already: no file is
    // written for it again, and the state has nothing to add.
    if (output_ && state_) {
      if (const StateStore::Committed* c =
              state_->FindCommittedInput(Digest())) {
        std::fprintf(stderr,
                     "uriscan: dedup --state: this input was committed to %s "
                     "at %s, into %s; nothing to do (%s was not written)\n",
                     state_dir_.c_str(), StateStore::TimeText(c->time).c_str(),
                     c->path.c_str(), output_name_.c_str());
        return true;
      }
    }
    if (output_ && !output_->Sync(&error)) {
      std::fprintf(stderr, "uriscan: dedup: %s%s\n", error.c_str(),
                   state_ ? "; the state is as before this run" : "");
      return false;
    }
    if (state_) {
      if (output_)
        state_->SetOutput(output_->tmp(), output_->path(), Digest());
      const bool committed = state_->Commit(&error);
      // Once a MANIFEST names the temporary file, it is the state's: it
      // stays whatever happens next (the next update puts it in place).
      if (output_ && state_->published()) output_->Keep();
      if (!committed) {
        std::fprintf(stderr, "uriscan: dedup --state: %s; %s\n",
                     error.c_str(),
                     state_->published()
                         ? "the state includes this run, but may not be "
                           "durable"
                         : "the state is as before this run");
        if (!state_->published()) return false;
        if (output_ && !output_->Publish(&error))
          std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
        return false;
      }
    }
    if (output_ && !output_->Publish(&error)) {
      std::fprintf(stderr, "uriscan: dedup: %s%s\n", error.c_str(),
                   state_ ? "; the state includes this run: the next run "
                            "with it puts the output in place"
                          : "");
      return false;
    }
    return true;
  }
  int Report(const Totals& t, bool stopped, double wall) override {
    if (!summary_json_) return CommandRun::Report(t, stopped, wall);
    // One object on stderr, even with --quiet: asked for by name.
    std::string j = "{\"format\":\"uriscan-dedup-summary-1\",\"lines\":" +
                    std::to_string(t.lines) +
                    ",\"valid\":" + std::to_string(t.valid) +
                    ",\"invalid\":" + std::to_string(t.lines - t.valid) +
                    ",\"errors\":{";
    for (int k = 1; k < kErrorKindCount; ++k) {
      if (k > 1) j += ',';
      AppendJsonString(ErrorKindName(static_cast<ErrorKind>(k)), &j);
      j += ':' + std::to_string(t.by_error[k]);
    }
    j += "},\"repaired\":" + std::to_string(t.repaired) +
         ",\"held_back\":" + std::to_string(t.held_back) +
         ",\"stopped\":" + (stopped ? "true" : "false") +
         ",\"distinct\":" + std::to_string(sink_ ? sink_->distinct() : 0) +
         ",\"duplicates\":" + std::to_string(sink_ ? sink_->duplicates() : 0) +
         ',';
    if (sink_) sink_->AppendJson(&j);
    j += ",\"output\":";
    if (output_name_.empty()) {
      j += "null";
    } else {
      AppendJsonString(output_ ? output_->path() : output_name_, &j);
    }
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, ",\"wall_seconds\":%.6f}\n", wall);
    j += seconds;
    std::fputs(j.c_str(), stderr);
    return 0;
  }
  std::string SummaryTail(const Totals& /*t*/) const override {
    if (!sink_) return {};
    return ", " + std::to_string(sink_->distinct()) + " distinct, " +
           std::to_string(sink_->duplicates()) + " duplicates (" +
           sink_->Describe() + ")";
  }

 private:
  // --state=DIR without --profile (or a crawler option): the profile and
  // its options its MANIFEST names, so that each day's run needs only the
  // directory. A new (or unreadable) state keeps the defaults: opening it
  // for update then says what is wrong. False after a message.
  bool TakeStateProfile() {
    StateStore stored;
    stored.set_lock_wait(lock_wait_);
    std::string error;
    if (!stored.OpenForReading(state_dir_, &error, /*checksums=*/false,
                               /*top_only=*/true) ||
        !stored.exists())
      return true;
    const StateStore::Identity& id = stored.identity();
    if (!ProfileOfIdentity(id, &profile_.profile, &profile_.normalize)) {
      std::fprintf(stderr,
                   "uriscan: dedup --state: state %s holds keys of profile "
                   "'%s', which this uriscan does not know\n",
                   state_dir_.c_str(), id.profile.c_str());
      return false;
    }
    return true;
  }

  // The digest of the input's lines and of the options that shape the
  // output (the profile's keys, --keys, --on-error, --max-line).
  uint64_t Digest() const {
    return digest_ ? XXH3_64bits_digest(digest_.get()) : 0;
  }

  // A rerun into a FILE the state names: the same input and options wrote
  // it (exit 0, nothing written), or other ones did (exit 2).
  bool SameAsCommitted() const {
    const std::string when = StateStore::TimeText(rerun_->time);
    if (Digest() == rerun_->digest) {
      std::fprintf(stderr,
                   "uriscan: dedup --state: %s was committed to %s from "
                   "this same input; nothing to do\n",
                   output_name_.c_str(), state_dir_.c_str());
      return true;
    }
    std::fprintf(stderr,
                 "uriscan: dedup --state: %s was committed to %s at %s from "
                 "other input (or other options); nothing was written or "
                 "added: give this input another --output FILE\n",
                 output_name_.c_str(), state_dir_.c_str(), when.c_str());
    return false;
  }

  // --output=FILE: the temporary file beside FILE as standard output; -1
  // when the run goes on, else its exit status. A FILE that exists is
  // refused, but for an output the state names as committed: the input is
  // read to compare its digest with that run's (SameAsCommitted()), and
  // nothing is written.
  int OpenOutput() {
    output_ = std::make_unique<OutputFile>();
    std::string error;
    if (!output_->Resolve(output_name_, &error)) {
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
      return 2;
    }
    SetOutputName(output_name_);
    digest_.reset(XXH3_createState());
    const std::string options =
        std::to_string(fingerprinter_->seed()) + " keys=" +
        (config_.keys ? "1" : "0") + " on-error=" +
        std::to_string(static_cast<int>(on_error_)) +
        " max-line=" + std::to_string(opt_.max_line);
    XXH3_64bits_reset(digest_.get());
    XXH3_64bits_update(digest_.get(), options.data(), options.size());
    if (output_->Exists()) {
      if (state_) {
        if (const StateStore::Committed* c =
                state_->FindCommitted(output_->path())) {
          rerun_ = std::make_unique<StateStore::Committed>(*c);
          output_.reset();
          return -1;
        }
      }
      std::fprintf(stderr,
                   "uriscan: dedup: --output %s exists; a run writes a new "
                   "file, whole, when it ends\n",
                   output_name_.c_str());
      return 2;
    }
    // A FILE the state names as committed that is gone: its lines are in
    // the state and would never be written again; an empty FILE in its
    // place would say there were none.
    if (state_) {
      if (const StateStore::Committed* c =
              state_->FindCommitted(output_->path())) {
        std::fprintf(stderr,
                     "uriscan: dedup --state: %s was committed to %s at %s "
                     "and is missing; nothing was written or added (restore "
                     "it from a copy; its lines are in the state, so no run "
                     "writes them again)\n",
                     output_name_.c_str(), state_dir_.c_str(),
                     StateStore::TimeText(c->time).c_str());
        return 2;
      }
    }
    if (!output_->Open(&error)) {
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
      return 2;
    }
    return -1;
  }

  // --state=DIR opened for update; false after a message.
  bool OpenState() {
    state_ = std::make_unique<StateStore>();
    state_->set_lock_wait(lock_wait_);
    std::string error;
    if (state_->OpenForUpdate(
            state_dir_, StateIdentityOf(*fingerprinter_, profile_.normalize),
            &error, shards_)) {
      // Said before anything else the run writes.
      if (!state_->lost_output().empty())
        std::fprintf(stderr, "uriscan: dedup --state: warning: %s\n",
                     state_->lost_output().c_str());
      return true;
    }
    std::fprintf(stderr, "uriscan: dedup --state: %s\n", error.c_str());
    state_.reset();
    return false;
  }

  ProfileOptions profile_;
  OnError on_error_ = OnError::kKeep;  // kSkip with --state unless given
  bool on_error_given_ = false;
  DedupSink::Config config_;
  std::string state_dir_;  // --state
  uint32_t shards_ = 0;    // --shards: 0 takes the state's
  double lock_wait_ = 0;   // --wait-lock: seconds
  bool summary_json_ = false;  // --summary=json
  std::string output_name_;  // --output
  std::unique_ptr<OutputFile> output_;
  struct DigestFree {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::unique_ptr<XXH3_state_t, DigestFree> digest_;  // --output
  std::unique_ptr<StateStore::Committed> rerun_;  // FILE a run committed
  std::unique_ptr<Fingerprinter> fingerprinter_;
  std::unique_ptr<StateStore> state_;
  std::unique_ptr<DedupSink> sink_;
  std::vector<std::vector<uint64_t>> keys_;  // per slot: row i's key, 0 when
                                             // invalid
};

// --bloom: a filter for more lines than this would take more than 2 TB.
constexpr uint64_t kMaxBloomLines = uint64_t{1} << 40;

void DedupRun::AddOptions(CLI::App* app) {
  AddProfileOptions(app, &profile_);
  AddOnErrorOption(app, &on_error_, &on_error_given_);
  AddFlag(app, "--keys", [this] { config_.keys = true; });
  AddValueOption(app, "--memory", "SIZE", [this](const std::string& v) {
    if (!ParseBytes(v.c_str(), &config_.memory))
      throw UsageError("--memory takes a size from 1 byte to 1024T, such as "
                       "1500000, 64M or 4G");
  });
  AddValueOption(app, "--temp-dir", "DIR",
                 [this](const std::string& v) { config_.temp_dir = v; });
  AddValueOption(app, "--bloom", "N", [this](const std::string& v) {
    size_t n = 0;
    if (!ParseBytes(v.c_str(), &n, kMaxBloomLines))
      throw UsageError("--bloom takes the expected count of distinct lines, "
                       "from 1 to 1T (2^40)");
    config_.bloom_expected = n;
  });
  AddValueOption(app, "--fp-rate", "P", [this](const std::string& v) {
    char* end = nullptr;
    config_.fp_rate = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !(config_.fp_rate > 0) ||
        !(config_.fp_rate < 1))
      throw UsageError("--fp-rate takes a probability between 0 and 1");
  });
  AddValueOption(app, "--state", "DIR", [this](const std::string& v) {
    if (v.empty()) throw UsageError("--state takes a directory");
    state_dir_ = v;
  });
  AddValueOption(app, "--shards", "N", [this](const std::string& v) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || v[0] == '-' || v[0] == '+' || n < 1 ||
        n > StateStore::kMaxShards || (n & (n - 1)) != 0)
      throw UsageError("--shards takes a power of 2 from 1 to 4096");
    shards_ = static_cast<uint32_t>(n);
  });
  AddValueOption(app, "--summary", "text|json", [this](const std::string& v) {
    if (v != "text" && v != "json")
      throw UsageError(Allowed("--summary", "text or json", v));
    summary_json_ = v == "json";
  });
  AddValueOption(app, "--wait-lock", "SECONDS", [this](const std::string& v) {
    char* end = nullptr;
    const double seconds = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(seconds >= 0 && seconds <= 86400))
      throw UsageError("--wait-lock takes seconds from 0 to 86400");
    lock_wait_ = seconds;
  });
  AddValueOption(app, "--output", "FILE", [this](const std::string& v) {
    // The path is written into a --state's MANIFEST, a line a field.
    if (v.empty() ||
        std::any_of(v.begin(), v.end(), [](char c) {
          return static_cast<unsigned char>(c) < ' ' || c == '\x7f';
        }))
      throw UsageError("--output takes a file name without control bytes");
    output_name_ = v;
  });
}

int DedupRun::Check() {
  if (const int status = CheckProfileOptions(profile_); status >= 0)
    return status;
  if (config_.bloom_expected > 0) {
    const uint64_t need = BloomFilter::BytesFor(
        config_.bloom_expected, config_.fp_rate / 2);  // the first layer
    if (need > config_.memory) {
      std::fprintf(stderr,
                   "uriscan: a Bloom filter for %llu lines at rate %g needs "
                   "%.1f MB, more than --memory; raise --memory or --fp-rate\n",
                   static_cast<unsigned long long>(config_.bloom_expected),
                   config_.fp_rate, need / 1e6);
      return 2;
    }
  }
  if (lock_wait_ > 0 && state_dir_.empty())
    return Usage("--wait-lock applies to --state");
  if (shards_ != 0 && state_dir_.empty())
    return Usage("--shards shards a --state directory; it needs --state");
  if (!state_dir_.empty() && config_.bloom_expected > 0)
    return Usage("--state keeps an exact seen-set; it cannot take --bloom");
  // An invalid line has no class, so the state cannot hold it: kept, it
  // would be written again by every run. A crawler's new URLs are valid
  // ones; invalid lines still get their diagnostics and counts.
  if (!state_dir_.empty() && !on_error_given_) on_error_ = OnError::kSkip;
  return -1;
}

}  // namespace

const CommandSpec kDedupCommand = {
    "dedup", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    true, MakeRun<DedupRun>};

}  // namespace cli
}  // namespace uriscan
