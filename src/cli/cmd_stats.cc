// SPDX-License-Identifier: MIT
// uriscan stats: the counts the shared pipeline makes, reported on stdout
// as text, JSON or an HTML page; with --from=F, of the references extract
// would write from a log, CSV, TSV, JSON Lines or text.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/ingest.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/report.h"
#include "src/store/output_file.h"
#include "uriscan/analytics.h"
#include "uriscan/hosts.h"

#define XXH_INLINE_ALL  // short names: let the compiler inline XXH3
#include <xxhash.h>

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n"
    "      [--from=F]              of the references extract --from=F\n"
    "                              writes (text, clf, combined, tsv, csv,\n"
    "                              jsonl), and the input's lines by kind;\n"
    "                              clf, combined: a log report (requests\n"
    "                              by status and hour, bytes sent, top\n"
    "                              paths, referring domains and user\n"
    "                              agents, problems with sample lines)\n"
    "      [--field=X]             as extract takes it: combined: target\n"
    "                              or referer; tsv, csv: a column; jsonl:\n"
    "                              a key\n"
    "      [--base=URI]            clf, combined: targets resolved against\n"
    "                              URI first, as extract does\n"
    "      [--top=N]               the N most frequent hosts (lower-cased),\n"
    "                              registrable domains, schemes, decoded\n"
    "                              parameter names and error kinds\n"
    "      [--histograms]          the lengths of the lines and of the\n"
    "                              valid references' hosts, paths and\n"
    "                              queries, in power-of-two buckets\n"
    "      [--format=text|json]    json: one object with stable keys\n"
    "                              (docs/cli.md), --histograms and --top=10\n"
    "                              unless --top says otherwise\n"
    "      [--html=FILE]           also the report as one self-contained\n"
    "                              HTML page with charts (no script, no\n"
    "                              network), written whole into a new FILE\n"
    "      [--force]               --html: replace an existing FILE (the\n"
    "                              page is still written whole, then renamed\n"
    "                              over it; a link is replaced, not followed)\n";

// Lengths in power-of-two buckets: 0, 1, 2-3, 4-7, ..., and the last
// from 2^20 bytes on.
constexpr int kBuckets = 22;
int Bucket(size_t n) {
  return n == 0 ? 0 : std::min(kBuckets - 1, 64 - __builtin_clzll(n));
}
using Histogram = std::array<uint64_t, kBuckets>;
void AddTo(const Histogram& from, Histogram* to) {
  for (int b = 0; b < kBuckets; ++b) (*to)[b] += from[b];
}

// The length histograms of the valid references (the URI: of every line).
struct Histograms {
  Histogram uri{}, host{}, path{}, query{};
  void Add(const Histograms& o) {
    AddTo(o.uri, &uri);
    AddTo(o.host, &host);
    AddTo(o.path, &path);
    AddTo(o.query, &query);
  }
};

// ASCII lower case (a valid URI's scheme or reg-name) in *scratch, copied
// only when the text has an upper-case letter.
std::string_view Lowered(std::string_view text, std::string* scratch) {
  const auto upper = [](char ch) { return ch >= 'A' && ch <= 'Z'; };
  if (std::none_of(text.begin(), text.end(), upper)) return text;
  scratch->assign(text);
  for (char& ch : *scratch)
    if (upper(ch)) ch = static_cast<char>(ch - 'A' + 'a');
  return *scratch;
}

// Counts of names, most frequent first on demand. Past `kKept` names the
// counts are trimmed as in Misra and Gries' frequent-items summary: every
// count falls by the count of the name ranked kKept + 1 and those at 0
// go, so memory stays bounded on any input; a count is then short by at
// most `undercount` (the sum of those falls), and a name above that is
// certainly among the most frequent.
//
// One open-addressing table of entry numbers over a vector of entries whose
// names sit end to end in one string: counting a name already met is one
// XXH3 hash and one probe, with no allocation; an entry keeps its number
// until the counts are cleared or trimmed, so a caller may hold it.
class NameCounts {
 public:
  static constexpr size_t kKept = size_t{1} << 16;
  static constexpr uint32_t kNone = UINT32_MAX;

  static uint64_t Hash(std::string_view name) {
    return XXH3_64bits(name.data(), name.size());
  }
  // The entry of `name`, made with a count of 0 (and *added set) when new.
  // Lists and logs repeat a name on consecutive lines: the last one found
  // is compared first, before any hashing.
  uint32_t Find(std::string_view name, bool* added) {
    if (last_ != kNone && Name(entries_[last_]) == name) {
      *added = false;
      return last_;
    }
    last_ = Find(name, Hash(name), added);
    return last_;
  }
  // The same, `hash` being Hash(name).
  uint32_t Find(std::string_view name, uint64_t hash, bool* added) {
    if (2 * (entries_.size() + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    const uint64_t high = hash & ~uint64_t{UINT32_MAX};
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const uint64_t slot = slots_[i];
      if (slot == 0) {
        *added = true;
        const auto at = static_cast<uint32_t>(entries_.size());
        slots_[i] = Slot(hash, at);
        entries_.push_back(Entry{hash, 0, names_.size(),
                                 static_cast<uint32_t>(name.size()), kNone,
                                 kNone});
        names_.append(name);
        return at;
      }
      if ((slot & ~uint64_t{UINT32_MAX}) != high) continue;
      const auto at = static_cast<uint32_t>(slot - 1);  // the low half
      if (Name(entries_[at]) == name) {
        *added = false;
        return at;
      }
    }
  }
  void Count(uint32_t entry, uint64_t n = 1) { entries_[entry].count += n; }
  void Add(std::string_view name, uint64_t n = 1) {
    bool added;
    Count(Find(name, &added), n);
  }
  // A number the caller keeps beside an entry (kNone until set).
  uint32_t tag(uint32_t entry) const { return entries_[entry].tag; }
  std::string_view name(uint32_t entry) const { return Name(entries_[entry]); }
  uint64_t hash(uint32_t entry) const { return entries_[entry].hash; }
  void set_tag(uint32_t entry, uint32_t tag) { entries_[entry].tag = tag; }
  // Every tag back to kNone.
  void ClearTags() {
    for (Entry& e : entries_) e.tag = kNone;
  }
  // Calls f(entry, count) for each entry whose count is above 0.
  template <class F>
  void ForEachCounted(F f) const {
    for (uint32_t k = 0; k < entries_.size(); ++k)
      if (entries_[k].count > 0) f(k, entries_[k].count);
  }

  // Adds a chunk's counts to these and sets the chunk's to 0: the chunk's
  // table keeps its names (and their tags) for the next chunk of its slot,
  // which likely meets most of them again (Tops::Merge clears it). A chunk
  // entry remembers its entry here, so a name met again costs no lookup
  // until these are trimmed (a new `generation_`).
  void Merge(NameCounts* chunk) {
    if (chunk->merged_generation_ != generation_) {
      for (Entry& e : chunk->entries_) e.merged = kNone;
      chunk->merged_generation_ = generation_;
    }
    for (Entry& e : chunk->entries_) {
      if (e.count == 0) continue;
      if (e.merged == kNone) {
        bool added;
        e.merged = Find(chunk->Name(e), e.hash, &added);
      }
      Count(e.merged, e.count);
      e.count = 0;
    }
    TrimIfFull();
  }
  // Adds a list of counted names (NameRuns), in its order, and calls
  // counted(entry, count) for each.
  template <class List, class F>
  void MergeList(const List& list, F counted) {
    for (size_t k = 0; k < list.size(); ++k) {
      bool added;
      const uint32_t entry = Find(list.name(k), list.hash(k), &added);
      Count(entry, list.count(k));
      counted(entry, list.count(k));
    }
  }
  // Trims the counts (see above) when they hold more than 2 * kKept names;
  // true when they did.
  bool TrimIfFull() {
    if (entries_.size() <= 2 * kKept) return false;
    Trim();
    return true;
  }
  std::vector<std::pair<std::string, uint64_t>> Top(size_t n) const {
    std::vector<std::pair<std::string, uint64_t>> all;
    all.reserve(entries_.size());
    for (const Entry& e : entries_)
      if (e.count > 0) all.emplace_back(std::string(Name(e)), e.count);
    // Most frequent first; ties by name, so the order is stable.
    auto before = [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    };
    const size_t k = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + k, all.end(), before);
    all.resize(k);
    return all;
  }
  uint64_t undercount() const { return undercount_; }
  size_t size() const { return entries_.size(); }
  void Clear() {
    last_ = kNone;
    entries_.clear();
    names_.clear();
    std::fill(slots_.begin(), slots_.end(), 0);
    ++generation_;
  }

 private:
  struct Entry {
    uint64_t hash;
    uint64_t count;
    size_t offset;  // of the name in names_
    uint32_t size;
    uint32_t tag;
    uint32_t merged;  // its entry in the table it was merged into, or kNone
  };
  std::string_view Name(const Entry& e) const {
    return std::string_view(names_).substr(e.offset, e.size);
  }
  // A slot holds the high half of its entry's hash above the entry's
  // number + 1 (0: empty), so a probe reads an entry only when the hashes
  // agree.
  static uint64_t Slot(uint64_t hash, uint32_t entry) {
    return (hash & ~uint64_t{UINT32_MAX}) | (uint64_t{entry} + 1);
  }
  // Twice the slots (16 at first), every entry placed again.
  void Grow() {
    slots_.assign(std::max<size_t>(16, 2 * slots_.size()), 0);
    Place();
  }
  void Place() {
    const size_t mask = slots_.size() - 1;
    for (uint32_t k = 0; k < entries_.size(); ++k) {
      size_t i = entries_[k].hash & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = Slot(entries_[k].hash, k);
    }
  }
  void Trim() {
    std::vector<uint64_t> values;
    values.reserve(entries_.size());
    for (const Entry& e : entries_) values.push_back(e.count);
    std::nth_element(values.begin(), values.begin() + kKept, values.end(),
                     std::greater<uint64_t>());
    const uint64_t fall = values[kKept];
    std::vector<Entry> kept;
    std::string names;
    for (const Entry& e : entries_) {
      if (e.count <= fall) continue;
      kept.push_back(Entry{e.hash, e.count - fall, names.size(), e.size,
                           kNone, kNone});
      names.append(Name(e));
    }
    last_ = kNone;
    entries_.swap(kept);
    names_.swap(names);
    std::fill(slots_.begin(), slots_.end(), 0);
    Place();
    undercount_ += fall;
    ++generation_;
  }

  std::vector<Entry> entries_;
  std::vector<uint64_t> slots_;  // Slot(): 0 empty
  std::string names_;
  uint32_t last_ = kNone;  // the entry Find() gave last
  uint64_t undercount_ = 0;
  // Entry numbers hold until generation_ changes (a Clear or a Trim); the
  // generation of the table this one was last merged into.
  uint64_t generation_ = 0, merged_generation_ = UINT64_MAX;
};

// A host's tag when it has no registrable domain (an IP-like name, a
// public suffix itself).
constexpr uint32_t kNoDomain = NameCounts::kNone - 1;

// A worker's names of a chunk, counted a run of lines at a time in a table
// small enough to stay in the cache (up to kRun names), each run's names
// then listed with their counts for the main thread (NameCounts::MergeList):
// a name on many lines of a run costs one lookup in the totals.
class NameRuns {
 public:
  void Add(std::string_view name, uint64_t n = 1) {
    bool added;
    run_.Count(run_.Find(name, &added), n);
    if (added && run_.size() == kRun) EndRun();
  }
  // Lists the run's names and starts another.
  void EndRun() {
    run_.ForEachCounted([this](uint32_t e, uint64_t n) {
      const std::string_view name = run_.name(e);
      list_.push_back(Listed{run_.hash(e), n, names_.size(), name.size()});
      names_.append(name);
    });
    run_.Clear();
  }
  void ClearList() {
    list_.clear();
    names_.clear();
  }
  // The list.
  size_t size() const { return list_.size(); }
  uint64_t hash(size_t k) const { return list_[k].hash; }
  uint64_t count(size_t k) const { return list_[k].count; }
  std::string_view name(size_t k) const {
    return std::string_view(names_).substr(list_[k].offset, list_[k].size);
  }

 private:
  static constexpr size_t kRun = 4096;
  struct Listed {
    uint64_t hash, count;
    size_t offset, size;  // of the name in names_
  };
  NameCounts run_;
  std::vector<Listed> list_;
  std::string names_;
};

// A name as written on a run of consecutive lines (lists and logs repeat a
// scheme or a host line after line), counted lower-cased in a Table once
// the run ends: one comparison a line, no lookup. `last` is a view of the
// chunk's text, so the run ends with the chunk at the latest.
template <class Table>
struct Repeats {
  std::string_view last;
  uint64_t lines = 0;
  bool upper = false;  // `last` may hold upper case
  void Add(std::string_view name, bool may_be_upper, Table* table,
           std::string* scratch) {
    if (lines > 0 && name == last) return ++lines, void();
    End(table, scratch);
    last = name;
    lines = 1;
    upper = may_be_upper;
  }
  void End(Table* table, std::string* scratch) {
    if (lines > 0) table->Add(upper ? Lowered(last, scratch) : last, lines);
    lines = 0;
  }
};

// A chunk's names, on its worker: the hosts (reg-names lower-cased, IP
// addresses as written) in lists, the schemes and parameter names in
// tables that keep their names for the slot's next chunk.
struct ChunkTops {
  NameRuns reg_names, ip_hosts;
  NameCounts schemes, params;
  Repeats<NameCounts> scheme_lines;
  Repeats<NameRuns> reg_name_lines;
  // As the chunk ends.
  void End() {
    std::string scratch;
    scheme_lines.End(&schemes, &scratch);
    reg_name_lines.End(&reg_names, &scratch);
    reg_names.EndRun();
    ip_hosts.EndRun();
  }
};

// The totals. A host's tag is its registrable domain's entry in `domains`
// (kNoDomain: it has none), looked up in the Public Suffix List when the
// host is first met, or met again after a trim.
struct Tops {
  NameCounts hosts, domains, schemes, params;
  // Adds a chunk's counts on the main thread, in input order: the trims
  // fall between the same chunks at any --threads.
  void Merge(ChunkTops* chunk, const PublicSuffixList* suffixes) {
    hosts.MergeList(chunk->reg_names, [&](uint32_t host, uint64_t n) {
      uint32_t domain = hosts.tag(host);
      if (domain == NameCounts::kNone) {
        const std::optional<std::string_view> d =
            suffixes->Lookup(hosts.name(host)).registrable_domain;
        bool added;
        domain = d ? domains.Find(*d, &added) : kNoDomain;
        hosts.set_tag(host, domain);
      }
      if (domain != kNoDomain) domains.Count(domain, n);
    });
    // An IP address never reaches the list of reg-names: its tag is never
    // read.
    hosts.MergeList(chunk->ip_hosts, [](uint32_t, uint64_t) {});
    chunk->reg_names.ClearList();
    chunk->ip_hosts.ClearList();
    hosts.TrimIfFull();  // the tags of the hosts kept are looked up again
    if (domains.TrimIfFull()) hosts.ClearTags();  // entries renumbered
    schemes.Merge(&chunk->schemes);
    params.Merge(&chunk->params);
    constexpr size_t kMost = NameCounts::kKept;
    if (chunk->schemes.size() > kMost) chunk->schemes.Clear();
    if (chunk->params.size() > kMost) chunk->params.Clear();
  }
};

// The registrable domain of a lower-cased reg-name, from this thread's
// memory of the hosts it met (up to 2^16 of them, then forgotten at once)
// or the Public Suffix List.
std::optional<std::string_view> DomainOf(const PublicSuffixList* suffixes,
                                         std::string_view host) {
  thread_local NameCounts known;  // tag: the domain's entry in `domains`
  thread_local NameCounts domains;
  thread_local const PublicSuffixList* list = nullptr;
  if (list != suffixes || known.size() > NameCounts::kKept) {
    known.Clear();
    domains.Clear();
    list = suffixes;
  }
  bool added;
  const uint32_t k = known.Find(host, &added);
  if (added) {
    const auto domain = suffixes->Lookup(host).registrable_domain;
    known.set_tag(k, domain ? domains.Find(*domain, &added) : kNoDomain);
  }
  if (known.tag(k) == kNoDomain) return std::nullopt;
  return domains.name(known.tag(k));
}

// A problem of a log (a malformed line, or a reference with an error
// kind), with the first few lines that have it.
struct LogProblem {
  struct Sample {
    std::string file;  // as the report names it ("<stdin>")
    uint64_t line, column;
    std::string text;  // the log line (a reference error: the reference)
  };
  static constexpr size_t kSamples = 3;
  static constexpr size_t kSampleBytes = 160;  // of a sample's text
  std::string_view kind, message;  // static strings
  uint64_t count = 0;
  std::vector<Sample> samples;  // in input order, up to kSamples
};

// With --from=clf or --from=combined: what the log holds beside its
// references, in the spirit of GoAccess. A chunk's, then the totals.
struct LogReport final : ingest::LogLineVisitor {
  uint64_t requests = 0;  // lines in the format
  std::array<uint64_t, 1000> status{};  // by code
  uint64_t no_status = 0;                // "-", or not a 3-digit code
  std::array<uint64_t, 24> hours{};      // by hour of the day, UTC
  uint64_t no_time = 0;
  uint64_t bytes = 0, no_size = 0;  // %b's sum (saturating); "-"s
  NameCounts paths, referrers, agents;  // with --top
  std::vector<LogProblem> problems;     // in order of first appearance
  // The chunk's: each reference's log line (from the chunk's first, 0).
  std::vector<uint64_t> reference_lines;
  // Set when the top lists are counted (--top).
  const PublicSuffixList* suffixes = nullptr;

  void Line(uint64_t line, const ingest::LogFields& f,
            size_t references) override {
    reference_lines.insert(reference_lines.end(), references, line);
    ++requests;
    if (f.status >= 0) {
      ++status[f.status];
    } else {
      ++no_status;
    }
    if (f.has_time) {
      const int64_t day = 86400 * int64_t{1000000};
      const int64_t in_day = (f.time % day + day) % day;
      ++hours[in_day / (3600 * int64_t{1000000})];
    } else {
      ++no_time;
    }
    if (f.bytes < 0) {
      ++no_size;
    } else if (__builtin_add_overflow(bytes, static_cast<uint64_t>(f.bytes),
                                      &bytes)) {
      bytes = UINT64_MAX;
    }
    if (!suffixes) return;
    if (f.has_user_agent) agents.Add(f.user_agent);
    if (f.has_referer) {
      // Its registrable domain; a host without one (an IP literal, a
      // public suffix) as itself. A referer that is no URI with a host is
      // not counted.
      const UriReference ref = ParseUriReference(f.referer);
      if (!ref.valid() || !ref.host() || ref.host()->empty()) return;
      if (ref.host_kind() != HostKind::kRegName) {
        referrers.Add(*ref.host());
        return;
      }
      thread_local std::string lower;
      const std::string_view host = Lowered(*ref.host(), &lower);
      const std::optional<std::string_view> domain = DomainOf(suffixes, host);
      referrers.Add(domain ? *domain : host);
    }
  }
  // Counts a problem, and keeps its line as a sample while it has fewer
  // than kSamples.
  void AddProblem(std::string_view kind, std::string_view message,
                  const std::string& file, uint64_t line, uint64_t column,
                  std::string_view text) {
    LogProblem& p = Find(kind, message);
    ++p.count;
    if (p.samples.size() >= LogProblem::kSamples) return;
    if (text.size() > LogProblem::kSampleBytes) {
      size_t cut = LogProblem::kSampleBytes;  // not inside a UTF-8 sequence
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
      text = text.substr(0, cut);
    }
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    p.samples.push_back(
        {file == "-" ? "<stdin>" : file, line, column, std::string(text)});
  }
  // Adds a chunk's report (the next in input order) and sets its counts
  // to 0; its name tables keep their names for the next chunk, as Tops'.
  void Merge(LogReport* c) {
    requests += std::exchange(c->requests, 0);
    for (size_t k = 0; k < status.size(); ++k)
      status[k] += std::exchange(c->status[k], 0);
    no_status += std::exchange(c->no_status, 0);
    for (size_t k = 0; k < hours.size(); ++k)
      hours[k] += std::exchange(c->hours[k], 0);
    no_time += std::exchange(c->no_time, 0);
    if (__builtin_add_overflow(bytes, std::exchange(c->bytes, 0), &bytes))
      bytes = UINT64_MAX;
    no_size += std::exchange(c->no_size, 0);
    const auto names = [](NameCounts* total, NameCounts* chunk) {
      total->Merge(chunk);
      if (chunk->size() > NameCounts::kKept) chunk->Clear();
    };
    names(&paths, &c->paths);
    names(&referrers, &c->referrers);
    names(&agents, &c->agents);
    for (LogProblem& p : c->problems) {
      LogProblem& total = Find(p.kind, p.message);
      total.count += p.count;
      for (LogProblem::Sample& s : p.samples)
        if (total.samples.size() < LogProblem::kSamples)
          total.samples.push_back(std::move(s));
    }
    c->problems.clear();
  }
  // Most frequent first; ties by kind, then message.
  std::vector<const LogProblem*> SortedProblems() const {
    std::vector<const LogProblem*> sorted;
    for (const LogProblem& p : problems) sorted.push_back(&p);
    std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
      if (a->count != b->count) return a->count > b->count;
      return a->kind != b->kind ? a->kind < b->kind : a->message < b->message;
    });
    return sorted;
  }
  // Requests by class: 1xx to 5xx, then the others (other codes, none).
  std::array<uint64_t, 6> Classes() const {
    std::array<uint64_t, 6> classes{};
    for (size_t k = 0; k < status.size(); ++k)
      classes[k >= 100 && k < 600 ? k / 100 - 1 : 5] += status[k];
    classes[5] += no_status;
    return classes;
  }

 private:
  LogProblem& Find(std::string_view kind, std::string_view message) {
    for (LogProblem& p : problems)
      if (p.kind == kind && p.message == message) return p;
    problems.push_back({kind, message, 0, {}});
    return problems.back();
  }
};
constexpr const char* kStatusClasses[6] = {"1xx", "2xx", "3xx",
                                           "4xx", "5xx", "other"};

class StatsRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    // As extract takes them; extract's reader checks them (Check()).
    AddValueOption(app, "--from", "F", [this](const std::string& v) {
      from_ = v;
    });
    AddValueOption(app, "--field", "X", [this](const std::string& v) {
      if (v.empty()) throw UsageError("--field takes a name or number");
      field_ = v;
    });
    AddBaseOption(app, &base_);
    AddValueOption(app, "--format", "text|json", [this](const std::string& v) {
      if (v != "text" && v != "json")
        throw UsageError(Allowed("--format", "text or json", v));
      json_ = v == "json";
    });
    AddValueOption(app, "--top", "N", [this](const std::string& v) {
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || v[0] < '0' || v[0] > '9' || *end != '\0' ||
          n > 10000)
        throw UsageError("--top takes a count from 0 to 10000");
      top_ = n;
      top_given_ = true;
    });
    AddFlag(app, "--histograms", [this] { histograms_ = true; });
    AddFlag(app, "--force", [this] { force_ = true; });
    AddValueOption(app, "--html", "FILE", [this](const std::string& v) {
      if (v.empty()) throw UsageError("--html takes a file name");
      html_ = v;
    });
  }
  int Check() override {
    if (json_ || !html_.empty()) {
      histograms_ = true;
      if (!top_given_) top_ = 10;
    }
    if (!html_.empty()) {  // checked before any input is read
      std::string error;
      if (!html_file_.Resolve(html_, &error)) {
        std::fprintf(stderr, "uriscan: stats: --html: %s\n", error.c_str());
        return 2;
      }
      if (html_file_.Exists() && !force_)
        return Usage("--html " + html_ + " exists; stats writes a new file "
                     "(--force replaces it)");
    }
    if (force_ && html_.empty()) return Usage("--force applies to --html");
    if ((!field_.empty() || base_.given) && from_.empty())
      return Usage("--field and --base need --from");
    if (from_.empty()) return -1;
    int status = -1;
    report_ = from_ == "clf" || from_ == "combined";
    extractor_ = MakeExtractor(
        opt_, from_, field_, base_, &status,
        report_ ? std::function<ingest::LogLineVisitor*(size_t)>(
                      [this](size_t slot) { return &chunk_reports_[slot]; })
                : nullptr);
    return extractor_ ? -1 : status;
  }
  int Begin(size_t window, std::string* out) override {
    if (extractor_) extractor_->Begin(window, out);
    targets_.resize(window);
    chunk_histograms_.resize(window);
    chunk_tops_.resize(window);
    if (top_ > 0) suffixes_ = std::make_unique<PublicSuffixList>();
    if (report_) {
      chunk_reports_.resize(window);
      for (LogReport& r : chunk_reports_) r.suffixes = suffixes_.get();
    }
    return -1;
  }
  // The histograms and names of a chunk's rows, on its worker thread: the
  // parameter names of a run of rows at once, the rest row by row.
  bool PrepareChunk(const Batch& rows, Chunk* c) override;
  bool Row(size_t i, const UriReference& uri, uint32_t risk_flags,
           Chunk* c) override;
  // Merged in input order on the main thread (the counts do not depend on
  // the order, but the trimming of names past NameCounts::kKept does).
  void Emit(const Chunk& c, std::string* /*out*/, Totals* /*t*/) override {
    histograms_total_.Add(chunk_histograms_[c.slot]);
    chunk_histograms_[c.slot] = Histograms{};
    tops_total_.Merge(&chunk_tops_[c.slot], suffixes_.get());
    if (report_) report_total_.Merge(&chunk_reports_[c.slot]);
  }
  // The log report's samples name their lines (Chunk::first_line).
  bool NumberedRecords() const override { return report_; }
  bool WantsRiskFlags() const override { return true; }
  // It keeps only totals: a chunk is taken 4096 rows at a time (see
  // validate). Not a log's: what extraction keeps per log line is bounded
  // by the reader's cap on a chunk's lines.
  size_t SegmentRows() const override { return from_.empty() ? 4096 : 0; }
  // With --from: extract's records (a quoted field may hold line breaks)
  // and header row.
  void Follow(LineReader* reader) override {
    if (extractor_) extractor_->Follow(reader);
  }
  bool TakeRecords(LineReader* reader, Chunk* c, std::string* error) override {
    return !extractor_ || extractor_->TakeRecords(reader, c, error);
  }
  bool EmptyFile(const std::string& name, std::string* error) override {
    return !extractor_ || extractor_->EmptyFile(name, error);
  }
  void ProcessChunk(Chunk* c) override;
  int Report(const Totals& t, bool /*stopped*/, double wall) override {
    const std::string from =
        from_.empty() || field_.empty() ? from_ : from_ + ", " + field_;
    if (!html_.empty() && !WriteHtml(t, wall)) return 2;
    if (json_) return WriteStdout(Json(t, wall));
    PrintStats(opt_, t, wall, from);
    return WriteStdout(Extras(t));
  }

 private:
  // --top and --histograms in text, after the counts; and --format=json.
  std::string Extras(const Totals& t) const;
  std::string Json(const Totals& t, double wall) const;
  // --html=FILE: the report as one self-contained page (inline SVG, no
  // script), written whole into a new FILE (OutputFile: a temporary file
  // beside it, made with O_EXCL and no link followed, then renamed).
  bool WriteHtml(const Totals& t, double wall);
  std::vector<std::pair<std::string, uint64_t>> TopErrorKinds(
      const Totals& t) const;

  std::unique_ptr<CommandRun> extractor_;  // --from: extract's reading
  std::string from_;  // --from, or empty
  std::string field_;  // --field, or empty
  BaseOption base_;
  bool json_ = false, histograms_ = false, top_given_ = false;
  std::string html_;  // --html, or empty
  bool force_ = false;  // --force: --html may replace its FILE
  OutputFile html_file_;
  size_t top_ = 0;
  std::unique_ptr<PublicSuffixList> suffixes_;
  std::vector<Histograms> chunk_histograms_;
  std::vector<ChunkTops> chunk_tops_;
  Histograms histograms_total_;
  Tops tops_total_;
  bool report_ = false;  // --from=clf or combined: the log report
  std::vector<LogReport> chunk_reports_;
  LogReport report_total_;
  std::vector<std::string> targets_;  // per slot: what the log's lines give
};

// With --from, the references `extract --from=F` would write are scanned
// and counted, and the log's lines beside them; a line `extract` reports
// counts as malformed.
void StatsRun::ProcessChunk(Chunk* c) {
  if (from_.empty()) {
    CommandRun::ProcessChunk(c);
    return chunk_tops_[c->slot].End();
  }
  if (report_) chunk_reports_[c->slot].reference_lines.clear();
  const std::string_view log_text = c->input.text;
  extractor_->ProcessChunk(c);  // the references into c->out
  if (report_) {  // the malformed lines, with a few samples of each
    LogReport& report = chunk_reports_[c->slot];
    size_t pos = 0;
    uint64_t at = 0;  // the line at `pos` (diagnostics come in line order)
    for (const Diagnostic& d : c->diagnostics) {
      for (; at < d.row && pos < log_text.size(); ++at)
        pos = std::min(log_text.find('\n', pos), log_text.size() - 1) + 1;
      const std::string_view line =
          log_text.substr(pos, log_text.find('\n', pos) - pos);
      // A line too long is not kept (whether it is depends on the chunks).
      const bool kept = d.kind != ErrorKindName(ErrorKind::kTooLong);
      report.AddProblem(d.kind, d.message, *c->name, c->first_line + d.row,
                        d.column, kept ? line : std::string_view());
    }
  }
  Totals log;
  log.log_lines = c->totals.lines;
  log.malformed = c->totals.malformed;
  log.extracted = c->totals.extracted;
  log.no_target = c->totals.no_target;
  const uint64_t log_lines = c->input_lines;
  c->diagnostics.clear();  // counted as malformed; stats prints none
  c->totals = Totals{};
  if (c->too_long_line || log.extracted == 0) {
    c->rows = 0;
  } else {
    std::string& targets = targets_[c->slot];
    targets.swap(c->out);
    c->out.clear();
    c->input.text = targets;
    CommandRun::ProcessChunk(c);
    chunk_tops_[c->slot].End();
  }
  c->input_lines = log_lines;
  Add(log, &c->totals);
}

bool StatsRun::PrepareChunk(const Batch& rows, Chunk* c) {
  if (top_ == 0 || c->too_long_line) return true;
  ChunkTops& tops = chunk_tops_[c->slot];
  // The schemes and hosts of the valid rows, from the columns: a scheme is
  // [uri_begin, scheme_end), a host [host_begin, host_end) (ComponentSpans).
  const ComponentSpans& spans = c->spans;
  thread_local std::string lower;
  for (size_t i = 0; i < spans.size(); ++i) {
    const uint32_t begin = spans.uri_begin[i];
    if (spans.error_kind[i] != 0 || spans.uri_end[i] - begin > opt_.max_line)
      continue;
    const uint16_t f = spans.flags[i];
    const bool upper = f & flags::kHasUpperCase;  // in the scheme or host
    if (f & flags::kHasScheme)
      tops.scheme_lines.Add({rows.data + begin, spans.scheme_end[i] - begin},
                            upper, &tops.schemes, &lower);
    if (!(f & flags::kHasAuthority)) continue;
    const std::string_view host(rows.data + spans.host_begin[i],
                                spans.host_end[i] - spans.host_begin[i]);
    if (host.empty()) continue;
    const auto kind = static_cast<HostKind>((f & flags::kHostKindMask) >>
                                            flags::kHostKindShift);
    if (kind != HostKind::kRegName)
      tops.ip_hosts.Add(host);  // an IP address, as written
    else
      tops.reg_name_lines.Add(host, upper, &tops.reg_names, &lower);
  }
  // The parameter names, from the whole run of rows at once.
  thread_local QueryParams params;
  thread_local std::string decoded;
  ExtractQueryParams(rows.data, c->spans, &params);
  for (size_t k = 0; k < params.size(); ++k) {
    const size_t r = params.row[k];  // a line over --max-line has none
    if (c->spans.uri_end[r] - c->spans.uri_begin[r] > opt_.max_line)
      continue;
    const std::string_view raw(rows.data + params.name_begin[k],
                               params.name_end[k] - params.name_begin[k]);
    if (raw.find_first_of("%+") == std::string_view::npos) {
      tops.params.Add(raw);  // decoding would change nothing
      continue;
    }
    decoded.resize(raw.size());
    decoded.resize(Decode(raw, Decoding::kForm, decoded.data()));
    tops.params.Add(decoded);
  }
  return true;
}

bool StatsRun::Row(size_t i, const UriReference& uri, uint32_t /*risks*/,
                   Chunk* c) {
  // Row by row: the histograms, and the log report's problems and paths.
  // A line too long has no URI: not counted, in a run of lines or alone.
  if ((!histograms_ && !report_) || uri.error().kind == ErrorKind::kTooLong)
    return true;
  Histograms& h = chunk_histograms_[c->slot];
  if (histograms_) h.uri[Bucket(uri.text().size())]++;
  if (!uri.valid()) {
    LogReport* report = report_ ? &chunk_reports_[c->slot] : nullptr;
    if (report && i < report->reference_lines.size())
      report->AddProblem(ErrorKindName(uri.error().kind),
                         ErrorKindMessage(uri.error().kind), *c->name,
                         c->first_line + report->reference_lines[i],
                         uri.error().offset + 1, uri.text());
    return true;
  }
  if (histograms_) {
    if (uri.host()) h.host[Bucket(uri.host()->size())]++;
    h.path[Bucket(uri.path().size())]++;
    if (uri.query()) h.query[Bucket(uri.query()->size())]++;
  }
  if (report_ && top_ > 0) chunk_reports_[c->slot].paths.Add(uri.path());
  return true;
}

std::vector<std::pair<std::string, uint64_t>> StatsRun::TopErrorKinds(
    const Totals& t) const {
  std::vector<std::pair<std::string, uint64_t>> kinds;
  for (int k = 1; k < kErrorKindCount; ++k) {
    if (t.by_error[k] > 0)
      kinds.emplace_back(ErrorKindName(static_cast<ErrorKind>(k)),
                         t.by_error[k]);
  }
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a,
                                                  const auto& b) {
    return a.second > b.second;
  });
  if (kinds.size() > top_) kinds.resize(top_);
  return kinds;
}

// "0", "1", "2-3", ..., "1048576-": bucket b's range.
std::string BucketName(int b) {
  if (b == 0) return "0";
  const uint64_t low = uint64_t{1} << (b - 1);
  if (b == kBuckets - 1) return std::to_string(low) + "-";
  const uint64_t high = (uint64_t{1} << b) - 1;
  return low == high ? std::to_string(low)
                     : std::to_string(low) + "-" + std::to_string(high);
}

std::string StatsRun::Extras(const Totals& t) const {
  std::string out;
  char line[160];
  const auto list = [&](const char* title,
                        const std::vector<std::pair<std::string, uint64_t>>&
                            top) {
    std::snprintf(line, sizeof line, "  top %-12s (--top=%zu)\n", title, top_);
    out += line;
    for (const auto& [name, n] : top) {
      // The name may be long or hold any byte (a decoded parameter name):
      // written as a JSON string, so a line stays one line.
      std::string quoted;
      AppendJsonString(name, &quoted);
      out += "    " + quoted + " " + std::to_string(n) + "\n";
    }
  };
  const auto count = [&](const char* label, uint64_t n) {
    std::snprintf(line, sizeof line, "    %-18s %llu\n", label,
                  static_cast<unsigned long long>(n));
    out += line;
  };
  if (report_) {
    const LogReport& r = report_total_;
    out += "  log report (" + from_ + ")\n";
    count("requests", r.requests);
    const std::array<uint64_t, 6> classes = r.Classes();
    for (size_t k = 0; k < classes.size(); ++k) {
      if (classes[k] == 0) continue;
      const std::string label = std::string("status ") + kStatusClasses[k];
      count(label.c_str(), classes[k]);
      for (size_t code = k * 100 + 100; k < 5 && code < k * 100 + 200; ++code)
        if (r.status[code] > 0)
          count(("  " + std::to_string(code)).c_str(), r.status[code]);
    }
    // By hour, six to a line: "    by hour (UTC)      00 361  01 360 ...".
    for (size_t h = 0; r.requests > r.no_time && h < r.hours.size(); h += 6) {
      out += h == 0 ? "    by hour (UTC)     " : "                      ";
      for (size_t k = h; k < h + 6; ++k)
        out += (k == h ? " " : "  ") + std::string(k < 10 ? "0" : "") +
               std::to_string(k) + " " + std::to_string(r.hours[k]);
      out += '\n';
    }
    if (r.no_time > 0) count("no time", r.no_time);
    count("bytes sent", r.bytes);
    if (r.no_size > 0) count("no size (\"-\")", r.no_size);
    if (!r.problems.empty())
      out += "    problems (the first " +
             std::to_string(LogProblem::kSamples) +
             " lines of each; a reference's error: the reference)\n";
    for (const LogProblem* p : r.SortedProblems()) {
      out += "      " + std::string(p->kind) + ": " + std::string(p->message) +
             "  " + std::to_string(p->count) + "\n";
      for (const LogProblem::Sample& e : p->samples) {
        out += "        " + e.file + ":" +
               std::to_string(e.line) + ":" + std::to_string(e.column) + " ";
        AppendJsonString(e.text, &out);
        out += '\n';
      }
    }
  }
  if (top_ > 0) {
    list("hosts", tops_total_.hosts.Top(top_));
    list("domains", tops_total_.domains.Top(top_));
    list("schemes", tops_total_.schemes.Top(top_));
    list("parameters", tops_total_.params.Top(top_));
    list("error kinds", TopErrorKinds(t));
    if (report_) {
      list("paths", report_total_.paths.Top(top_));
      list("referring domains", report_total_.referrers.Top(top_));
      list("user agents", report_total_.agents.Top(top_));
    }
  }
  if (histograms_) {
    out += "  lengths in bytes: uri host path query (valid references "
           "but uri)\n";
    for (int b = 0; b < kBuckets; ++b) {
      const Histograms& h = histograms_total_;
      if (h.uri[b] + h.host[b] + h.path[b] + h.query[b] == 0) continue;
      std::snprintf(line, sizeof line, "    %-16s %llu %llu %llu %llu\n",
                    BucketName(b).c_str(),
                    static_cast<unsigned long long>(h.uri[b]),
                    static_cast<unsigned long long>(h.host[b]),
                    static_cast<unsigned long long>(h.path[b]),
                    static_cast<unsigned long long>(h.query[b]));
      out += line;
    }
  }
  return out;
}

std::string StatsRun::Json(const Totals& t, double wall) const {
  std::string j = "{";
  auto key = [&](const char* k) {
    if (j.size() > 1 && j.back() != '{' && j.back() != '[') j += ',';
    j += '"';
    j += k;
    j += "\":";
  };
  auto num = [&](const char* k, uint64_t v) {
    key(k);
    j += std::to_string(v);
  };
  auto str = [&](const char* k, std::string_view v) {
    key(k);
    AppendJsonString(v, &j);
  };
  auto pairs = [&](const char* k,
                   const std::vector<std::pair<std::string, uint64_t>>& top,
                   uint64_t undercount) {
    key(k);
    j += "{\"undercount\":" + std::to_string(undercount) + ",\"top\":[";
    for (size_t i = 0; i < top.size(); ++i) {
      if (i > 0) j += ',';
      j += "{\"value\":";
      AppendJsonString(top[i].first, &j);
      j += ",\"count\":" + std::to_string(top[i].second) + "}";
    }
    j += "]}";
  };
  auto histogram = [&](const char* k, const Histogram& h) {
    key(k);
    j += '[';
    for (int b = 0; b < kBuckets; ++b)
      j += (b ? "," : "") + std::to_string(h[b]);
    j += ']';
  };
  str("format", "uriscan-stats-1");
  str("mode", opt_.lenient ? "lenient" : "strict");
  key("inputs");
  j += '[';
  for (size_t i = 0; i < opt_.files.size(); ++i) {
    if (i > 0) j += ',';
    AppendJsonString(opt_.files[i] == "-" ? "<stdin>" : opt_.files[i], &j);
  }
  j += ']';
  key("log");
  if (from_.empty()) {
    j += "null";
  } else {
    j += '{';
    str("format", from_);
    key("field");
    if (field_.empty()) j += "null";
    else AppendJsonString(field_, &j);
    num("lines", t.log_lines);
    num("references", t.extracted);
    num("malformed", t.malformed);
    key("no_reference");
    j += '{';
    for (size_t k = 0; k < kNoTargetKinds; ++k)
      num(NoTargetName(static_cast<NoTarget>(k)), t.no_target[k]);
    j += '}';
    key("report");
    if (!report_) {
      j += "null";
    } else {
      const LogReport& r = report_total_;
      j += '{';
      num("requests", r.requests);
      key("status_classes");
      j += '{';
      const std::array<uint64_t, 6> classes = r.Classes();
      for (size_t k = 0; k < classes.size(); ++k)
        num(kStatusClasses[k], classes[k]);
      j += '}';
      key("status_codes");
      j += '{';
      for (size_t k = 0; k < r.status.size(); ++k)
        if (r.status[k] > 0) num(std::to_string(k).c_str(), r.status[k]);
      j += '}';
      num("no_status", r.no_status);
      key("hours_utc");
      j += '[';
      for (size_t k = 0; k < r.hours.size(); ++k)
        j += (k ? "," : "") + std::to_string(r.hours[k]);
      j += ']';
      num("no_time", r.no_time);
      num("bytes_sent", r.bytes);
      num("no_size", r.no_size);
      pairs("paths", r.paths.Top(top_), r.paths.undercount());
      pairs("referring_domains", r.referrers.Top(top_),
            r.referrers.undercount());
      pairs("user_agents", r.agents.Top(top_), r.agents.undercount());
      key("problems");
      j += '[';
      for (const LogProblem* p : r.SortedProblems()) {
        if (j.back() != '[') j += ',';
        j += '{';
        str("kind", p->kind);
        str("message", p->message);
        num("count", p->count);
        key("samples");
        j += '[';
        for (const LogProblem::Sample& e : p->samples) {
          if (j.back() != '[') j += ',';
          j += '{';
          str("file", e.file);
          num("line", e.line);
          num("column", e.column);
          str("text", e.text);
          j += '}';
        }
        j += "]}";
      }
      j += "]}";
    }
    j += '}';
  }
  num("lines", t.lines);
  num("bytes", t.bytes);
  num("valid", t.valid);
  num("invalid", t.lines - t.valid);
  key("errors");
  j += '{';
  for (int k = 1; k < kErrorKindCount; ++k)
    num(ErrorKindName(static_cast<ErrorKind>(k)), t.by_error[k]);
  j += '}';
  num("repaired", t.repaired);
  num("byte_order_marks", t.boms);
  key("host_kinds");
  j += '{';
  num("name", t.by_host[0]);
  num("ipv4", t.by_host[1]);
  num("ipv6", t.by_host[2]);
  num("ipvfuture", t.by_host[3]);
  j += '}';
  key("defined");
  j += '{';
  num("scheme", t.scheme);
  num("authority", t.authority);
  num("userinfo", t.userinfo);
  num("port", t.port);
  num("query", t.query);
  num("fragment", t.fragment);
  j += '}';
  key("risk_flags");
  j += '{';
  num("lines", t.flagged);
  for (int k = 0; k < risks::kCount; ++k) num(RiskFlagName(k), t.by_risk[k]);
  j += '}';
  key("top");
  j += '{';
  num("n", top_);
  pairs("hosts", tops_total_.hosts.Top(top_), tops_total_.hosts.undercount());
  pairs("registrable_domains", tops_total_.domains.Top(top_),
        tops_total_.domains.undercount());
  pairs("schemes", tops_total_.schemes.Top(top_),
        tops_total_.schemes.undercount());
  pairs("parameter_names", tops_total_.params.Top(top_),
        tops_total_.params.undercount());
  pairs("error_kinds", TopErrorKinds(t), 0);
  j += '}';
  key("histograms");
  j += '{';
  key("buckets");
  j += '[';
  for (int b = 0; b < kBuckets; ++b) {
    if (b > 0) j += ',';
    AppendJsonString(BucketName(b), &j);
  }
  j += ']';
  histogram("uri_length", histograms_total_.uri);
  histogram("host_length", histograms_total_.host);
  histogram("path_length", histograms_total_.path);
  histogram("query_length", histograms_total_.query);
  j += '}';
  key("throughput");
  j += '{';
  char v[64];
  std::snprintf(v, sizeof v, "%.6f", t.scan_seconds);
  key("scan_seconds");
  j += v;
  std::snprintf(v, sizeof v, "%.6f", wall);
  key("wall_seconds");
  j += v;
  num("threads", opt_.threads);
  str("target", DispatchedTargetName());
  j += "}}\n";
  return j;
}

// The page: sections in a grid, each a table whose rows hold a label, a
// number and a bar drawn to scale (a chart beside its numbers, no script);
// rows of 0 are left out and a long table is folded after kShown rows.
// Every number carries in data-key the JSON path of its value, so that the
// page can be checked against --format=json.
struct ChartRow {
  std::string label, key;  // key: the JSON path of the count
  uint64_t count;
};
constexpr size_t kShown = 10;

void AppendRows(const std::vector<ChartRow>& rows, size_t from, size_t to,
                uint64_t most, bool bars, std::string* h) {
  char width[32];
  for (size_t i = from; i < to; ++i) {
    const ChartRow& r = rows[i];
    *h += "<tr><td class=\"l\" title=\"";
    AppendHtmlText(r.label, h);
    *h += "\">";
    AppendHtmlText(r.label, h);
    *h += "</td><td class=\"n\" data-key=\"";
    AppendHtmlText(r.key, h);
    *h += "\">" + std::to_string(r.count) + "</td>";
    if (bars) {
      std::snprintf(width, sizeof width, "%.1f",
                    100.0 * static_cast<double>(r.count) /
                        static_cast<double>(std::max<uint64_t>(most, 1)));
      *h += "<td class=\"b\"><i style=\"width:" + std::string(width) +
            "%\"></i></td>";
    }
    *h += "</tr>";
  }
}

// A section of `rows` (bars: with a bar each, rows of 0 left out; or a
// table of every row); none when no row is left. `wide`: across the page.
void AppendSection(const std::string& title, std::vector<ChartRow> rows,
                   std::string* h, bool bars = true, bool wide = false) {
  if (bars)
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [](const ChartRow& r) { return r.count == 0; }),
               rows.end());
  if (rows.empty()) return;
  uint64_t most = 0;
  for (const ChartRow& r : rows) most = std::max(most, r.count);
  *h += wide ? "<section class=\"w\"><h2>" : "<section><h2>";
  AppendHtmlText(title, h);
  *h += "</h2><table>";
  const size_t shown = rows.size() > kShown + 2 ? kShown : rows.size();
  AppendRows(rows, 0, shown, most, bars, h);
  *h += "</table>";
  if (shown < rows.size()) {
    *h += "<details><summary>" + std::to_string(rows.size() - shown) +
          " more</summary><table>";
    AppendRows(rows, shown, rows.size(), most, bars, h);
    *h += "</table></details>";
  }
  *h += "</section>\n";
}

// Requests by hour of the day: a column a bar, its count and hour beneath.
void AppendHours(const LogReport& r, std::string* h) {
  uint64_t most = 0;
  for (uint64_t n : r.hours) most = std::max(most, n);
  if (most == 0) return;
  std::string bars, counts, hours;
  for (size_t k = 0; k < r.hours.size(); ++k) {
    if (r.hours[k] == 0) continue;
    const int height = static_cast<int>(
        std::max<double>(1, 80.0 * static_cast<double>(r.hours[k]) /
                                static_cast<double>(most)));
    bars += "<td><i style=\"height:" + std::to_string(height) + "px\"></i></td>";
    counts += "<td data-key=\"log.report.hours_utc." + std::to_string(k) +
              "\">" + std::to_string(r.hours[k]) + "</td>";
    hours += std::string("<th>") + (k < 10 ? "0" : "") + std::to_string(k) +
             "</th>";
  }
  *h += "<section class=\"w\"><h2>Requests by hour of the day (UTC)</h2>"
        "<table class=\"c\"><tr>" + bars + "</tr><tr>" + counts +
        "</tr><tr>" + hours + "</tr></table></section>\n";
}

// The problems of a log, most frequent first, each with its sample lines.
void AppendProblems(const LogReport& r, std::string* h) {
  const std::vector<const LogProblem*> problems = r.SortedProblems();
  if (problems.empty()) return;
  *h += "<section class=\"w\"><h2>Problems, with the first lines of each "
        "(a reference's error: the reference)</h2>";
  for (size_t i = 0; i < problems.size(); ++i) {
    const LogProblem& p = *problems[i];
    const std::string key = "log.report.problems." + std::to_string(i);
    *h += "<table><tr><td class=\"l\">";
    AppendHtmlText(std::string(p.kind) + ": " + std::string(p.message), h);
    *h += "</td><td class=\"n\" data-key=\"" + key + ".count\">" +
          std::to_string(p.count) + "</td></tr></table><ul>";
    for (size_t k = 0; k < p.samples.size(); ++k) {
      const LogProblem::Sample& e = p.samples[k];
      *h += "<li>";
      AppendHtmlText(e.file, h);
      *h += " line <span data-key=\"" + key + ".samples." +
            std::to_string(k) + ".line\">" + std::to_string(e.line) +
            "</span> column <span data-key=\"" + key + ".samples." +
            std::to_string(k) + ".column\">" + std::to_string(e.column) +
            "</span>: <code>";
      AppendHtmlText(e.text, h);
      *h += "</code></li>";
    }
    *h += "</ul>";
  }
  *h += "</section>\n";
}

std::vector<ChartRow> TopRows(
    const std::string& key,
    const std::vector<std::pair<std::string, uint64_t>>& list) {
  std::vector<ChartRow> rows;
  for (size_t i = 0; i < list.size(); ++i)
    rows.push_back({list[i].first, key + "." + std::to_string(i), list[i].second});
  return rows;
}

bool StatsRun::WriteHtml(const Totals& t, double wall) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>uriscan stats</title><style>"
      "body{font:13px sans-serif;margin:1em 1.5em;color:#222}"
      "h1{font-size:1.3em;margin:0 0 .2em}p{margin:0 0 .5em}"
      "main{display:grid;grid-template-columns:repeat(auto-fill,"
      "minmax(26em,1fr));gap:0 2em;align-items:start}"
      "section.w{grid-column:1/-1}"
      "h2{font-size:1em;margin:.8em 0 .2em;color:#345}"
      "table{border-collapse:collapse;width:100%}"
      "td{padding:0 6px;border-bottom:1px solid #eee}"
      "td.l{max-width:24em;overflow:hidden;text-overflow:ellipsis;"
      "white-space:nowrap}td.n{text-align:right;width:6em}"
      "td.b{width:35%}td.b i,table.c i{display:block;background:#4878a8}"
      "td.b i{height:.8em}"
      "table.c{width:auto}table.c td,table.c th{border:0;padding:0 3px;"
      "text-align:center;vertical-align:bottom;font-weight:normal}"
      "table.c i{width:1.8em;margin:auto}"
      "details summary{color:#567;cursor:pointer}"
      "ul{margin:0 0 .4em;padding-left:1.5em}"
      "code{font-size:.92em;word-break:break-all}"
      "</style></head><body>\n<h1>uriscan stats</h1>\n<p>";
  for (const std::string& f : opt_.files) {
    AppendHtmlText(f == "-" ? "<stdin>" : f, &h);
    h += " ";
  }
  h += opt_.lenient ? "(lenient)" : "(strict)";
  if (!from_.empty()) {
    h += ", read as ";
    AppendHtmlText(from_, &h);
  }
  char line[200];
  const double scan = t.scan_seconds > 0 ? t.scan_seconds : 1e-9;
  std::snprintf(line, sizeof line,
                "; %.1f MB/s scanning (%zu thread%s, Highway target %s), "
                "%.3f s in all.",
                t.bytes / 1e6 / scan, opt_.threads,
                opt_.threads == 1 ? "" : "s", DispatchedTargetName(), wall);
  h += line;
  h += "</p>\n<main>\n";
  std::vector<ChartRow> summary;
  if (!from_.empty()) {
    summary.push_back({"log lines", "log.lines", t.log_lines});
    summary.push_back({"log references", "log.references", t.extracted});
    summary.push_back({"malformed log lines", "log.malformed", t.malformed});
  }
  for (ChartRow r : std::vector<ChartRow>{
           {"references scanned", "lines", t.lines},
           {"bytes", "bytes", t.bytes},
           {"valid", "valid", t.valid},
           {"invalid", "invalid", t.lines - t.valid},
           {"repaired (--lenient)", "repaired", t.repaired},
           {"byte-order marks dropped", "byte_order_marks", t.boms}})
    summary.push_back(r);
  if (report_) {
    const LogReport& r = report_total_;
    summary.push_back({"requests", "log.report.requests", r.requests});
    summary.push_back({"bytes sent", "log.report.bytes_sent", r.bytes});
    summary.push_back({"requests without a size", "log.report.no_size",
                       r.no_size});
  }
  AppendSection("Summary", summary, &h, /*bars=*/false);
  if (report_) {
    const LogReport& r = report_total_;
    std::vector<ChartRow> classes, codes;
    const std::array<uint64_t, 6> c = r.Classes();
    for (size_t k = 0; k < c.size(); ++k)
      classes.push_back({kStatusClasses[k],
                         std::string("log.report.status_classes.") +
                             kStatusClasses[k],
                         c[k]});
    AppendSection("Requests by status class", classes, &h);
    for (size_t k = 0; k < r.status.size(); ++k)
      codes.push_back({std::to_string(k),
                       "log.report.status_codes." + std::to_string(k),
                       r.status[k]});
    AppendSection("Requests by status code", codes, &h);
    AppendHours(r, &h);
    AppendSection("Top paths", TopRows("log.report.paths.top",
                                       r.paths.Top(top_)), &h);
    AppendSection("Top referring domains",
                  TopRows("log.report.referring_domains.top",
                          r.referrers.Top(top_)), &h);
    AppendSection("Top user agents",
                  TopRows("log.report.user_agents.top", r.agents.Top(top_)),
                  &h, true, /*wide=*/true);
    AppendProblems(r, &h);
  }
  std::vector<ChartRow> errors;
  for (int k = 1; k < kErrorKindCount; ++k) {
    const std::string name = ErrorKindName(static_cast<ErrorKind>(k));
    errors.push_back({name, "errors." + name, t.by_error[k]});
  }
  AppendSection("Error kinds", errors, &h);
  AppendSection("Host kinds",
                {{"name", "host_kinds.name", t.by_host[0]},
                 {"ipv4", "host_kinds.ipv4", t.by_host[1]},
                 {"ipv6", "host_kinds.ipv6", t.by_host[2]},
                 {"ipvfuture", "host_kinds.ipvfuture", t.by_host[3]}},
                &h);
  AppendSection("Top registrable domains",
                TopRows("top.registrable_domains",
                        tops_total_.domains.Top(top_)), &h);
  AppendSection("Top hosts", TopRows("top.hosts", tops_total_.hosts.Top(top_)),
                &h);
  AppendSection("Top parameter names",
                TopRows("top.parameter_names", tops_total_.params.Top(top_)),
                &h);
  AppendSection("Schemes",
                TopRows("top.schemes", tops_total_.schemes.Top(top_)), &h);
  const auto lengths = [&](const char* title, const char* key,
                           const Histogram& hist) {
    std::vector<ChartRow> rows;
    for (int b = 0; b < kBuckets; ++b)
      rows.push_back({BucketName(b) + " bytes",
                      std::string("histograms.") + key + "." +
                          std::to_string(b),
                      hist[b]});
    AppendSection(title, rows, &h);
  };
  lengths("Line lengths", "uri_length", histograms_total_.uri);
  lengths("Host lengths", "host_length", histograms_total_.host);
  lengths("Path lengths", "path_length", histograms_total_.path);
  lengths("Query lengths", "query_length", histograms_total_.query);
  std::vector<ChartRow> flags = {
      {"lines with any", "risk_flags.lines", t.flagged}};
  for (int k = 0; k < risks::kCount; ++k)
    flags.push_back({RiskFlagName(k),
                     std::string("risk_flags.") + RiskFlagName(k),
                     t.by_risk[k]});
  AppendSection("Risk flags (RFC 3986 section 7)", flags, &h);
  h += "</main></body></html>\n";
  std::string error;
  if (!html_file_.Open(&error, /*as_stdout=*/false) ||
      !html_file_.Write(h, &error) || !html_file_.Sync(&error) ||
      !html_file_.Publish(&error, /*replace=*/force_)) {
    std::fprintf(stderr, "uriscan: stats: --html: %s\n", error.c_str());
    return false;
  }
  return true;
}

}  // namespace

const CommandSpec kStatsCommand = {
    "stats", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    false, MakeRun<StatsRun>};

}  // namespace cli
}  // namespace uriscan
