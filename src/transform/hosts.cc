// SPDX-License-Identifier: MIT
// PublicSuffixList (include/uriscan/hosts.h): a hash table of the list's
// rules, built once from the file libpsl's own list was made from, that
// answers as libpsl does; libpsl itself where that table cannot be trusted.
#include <idn2.h>
#include <libpsl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "uriscan/hosts.h"

#include "kernels/utf8.h"
#include "src/char_class.h"
#include "src/transform/surt.h"

namespace uriscan {
namespace {

constexpr size_t kCacheSize = 1 << 16;  // hosts per thread (libpsl path)

// libpsl looks at a host's last 9 labels only (8 dots).
constexpr int kMaxDots = 8;

// A rule's flags, as libpsl keeps them.
constexpr uint8_t kException = 1;  // "!labels"
constexpr uint8_t kWildcard = 2;   // "*.labels" (which lists "labels" too)
// Not a rule: the labels that end one ("uk" of "co.uk" when "uk" is no
// rule); a suffix that is neither rule nor such a node ends no rule, so
// no longer suffix is one.
constexpr uint8_t kNode = 0x80;

// The hash of a suffix is fed its bytes from the last to the first, so one
// right-to-left walk of a host gives the hash of each of its suffixes; a
// rotate and xor a byte (short chains: hosts are short), mixed once at
// lookup (Mix).
constexpr uint64_t kHashSeed = 0;
inline uint64_t HashStep(uint64_t h, unsigned char c) {
  return ((h << 7) | (h >> 57)) ^ c;
}
inline uint64_t Mix(uint64_t h) { return (h ^ (h >> 31)) * 0x9E3779B97F4A7C15ull; }
uint64_t HashSuffix(std::string_view s) {
  uint64_t h = kHashSeed;
  for (size_t i = s.size(); i-- > 0;) h = HashStep(h, s[i]);
  return h;
}

inline char LowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// The rules as an open-addressing hash table of whole suffixes
// ("co.uk", "ck" with kWildcard, "www.ck" with kException).
class RuleTable {
 public:
  // Adds a rule; `merge` ORs its flags into those of an equal rule (libpsl's
  // file loader), otherwise the first one stays (psl-make-dafsa, which made
  // libpsl's built-in list).
  void Add(std::string_view suffix, uint8_t flags, bool merge) {
    auto [it, added] = rules_.emplace(std::string(suffix), flags);
    if (!added && merge) it->second |= flags;
  }
  void Set(const std::string& suffix, uint8_t flags) { rules_[suffix] = flags; }
  bool Contains(std::string_view suffix) const {
    return rules_.count(std::string(suffix)) != 0;
  }
  const std::unordered_map<std::string, uint8_t>& rules() const {
    return rules_;
  }

  // Lays the rules out for Find: 8-byte slots (a tag of the mixed hash,
  // where the rule's bytes begin), the bytes led by their size (2 bytes)
  // and flags. False for a rule of 64 KiB or more.
  // Each rule's shorter label-aligned suffixes that are no rules go in as
  // kNode entries.
  bool Freeze() {
    std::unordered_map<std::string, uint8_t> entries = rules_;
    for (const auto& [suffix, flags] : rules_) {
      (void)flags;
      for (size_t dot = suffix.find('.'); dot != std::string::npos;
           dot = suffix.find('.', dot + 1)) {
        entries.emplace(suffix.substr(dot + 1), kNode);
      }
    }
    size_t size = 64;
    while (size < 2 * entries.size()) size *= 2;
    slots_.assign(size, Slot{0, kEmpty});
    shift_ = 64;
    for (size_t s = size; s > 1; s >>= 1) --shift_;
    bytes_.clear();
    for (const auto& [suffix, flags] : entries) {
      if (suffix.size() > 0xffff) return false;
      const uint64_t mixed = Mix(HashSuffix(suffix));
      size_t i = Home(mixed);
      while (slots_[i].offset != kEmpty) i = (i + 1) & (size - 1);
      slots_[i] = Slot{static_cast<uint32_t>(mixed), static_cast<uint32_t>(bytes_.size())};
      bytes_.push_back(static_cast<char>(suffix.size() & 0xff));
      bytes_.push_back(static_cast<char>(suffix.size() >> 8));
      bytes_.push_back(static_cast<char>(flags));
      bytes_.append(suffix);
    }
    return true;
  }

  // The flags of the entry for the `size` bytes at `suffix`, whose
  // HashSuffix is `hash` (kNode: no rule); -1 where there is none.
  int Find(const char* suffix, size_t size, uint64_t hash) const {
    const uint64_t mixed = Mix(hash);
    const uint32_t tag = static_cast<uint32_t>(mixed);
    const size_t mask = slots_.size() - 1;
    for (size_t i = Home(mixed);; i = (i + 1) & mask) {
      const Slot s = slots_[i];
      if (s.offset == kEmpty) return -1;
      if (s.tag != tag) continue;
      const unsigned char* b =
          reinterpret_cast<const unsigned char*>(bytes_.data()) + s.offset;
      if ((b[0] | size_t{b[1]} << 8) == size &&
          std::memcmp(b + 3, suffix, size) == 0) {
        return b[2];
      }
    }
  }

 private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  struct Slot {
    uint32_t tag, offset;
  };
  size_t Home(uint64_t mixed) const { return static_cast<size_t>(mixed >> shift_); }

  std::unordered_map<std::string, uint8_t> rules_;
  std::vector<Slot> slots_;
  std::string bytes_;
  int shift_ = 64;
};

// The label-aligned suffixes of a lower-cased host, within libpsl's last 9
// labels, left to right: where each begins and its hash.
struct Labels {
  const char* text;  // the lower-cased host
  size_t size;
  int count = 0;
  size_t begin[kMaxDots + 1];
  uint64_t hash[kMaxDots + 1];
};

// Lower-cases `host` (no NUL byte in it) into `lower`, right to left, as
// far as libpsl reads, noting where its labels begin. Returns false for a
// control byte in that part (0x1F matches the DAFSA's UTF-8 marker).
bool SplitLabels(std::string_view host, char* lower, Labels* labels) {
  const size_t n = host.size();
  size_t begin[kMaxDots + 1];
  uint64_t hash[kMaxDots + 1];
  int count = 0;
  uint64_t h = kHashSeed;
  size_t i = n;
  bool control = false;
  for (; i > 0; --i) {
    const char c = LowerAscii(host[i - 1]);
    control |= static_cast<unsigned char>(c) < 0x20;
    if (c == '.') {
      begin[count] = i;
      hash[count] = h;
      if (++count > kMaxDots) break;  // libpsl starts after this dot
    }
    lower[i - 1] = c;
    h = HashStep(h, static_cast<unsigned char>(c));
  }
  if (i == 0) {
    begin[count] = 0;
    hash[count] = h;
    ++count;
  }
  labels->text = lower;
  labels->size = n;
  labels->count = count;
  for (int k = 0; k < count; ++k) {
    labels->begin[k] = begin[count - 1 - k];
    labels->hash[k] = hash[count - 1 - k];
  }
  return !control;
}

// libpsl's is_public_suffix() of the suffix that begins label k: a single
// label is one (the prevailing "*" rule); otherwise a rule for the suffix
// that is no exception, or a wildcard rule for the suffix one label
// shorter. A suffix with a leading '.' is judged without it.
bool IsPublicSuffix(const RuleTable& table, const Labels& labels, int k) {
  if (labels.begin[k] < labels.size && labels.text[labels.begin[k]] == '.')
    ++k;  // an empty label: judged from the next one
  if (labels.count - k == 1) return true;
  const size_t b = labels.begin[k];
  const int rule = table.Find(labels.text + b, labels.size - b, labels.hash[k]);
  if (rule >= 0 && !(rule & kNode)) return !(rule & kException);
  const size_t r = labels.begin[k + 1];
  const int parent =
      table.Find(labels.text + r, labels.size - r, labels.hash[k + 1]);
  return parent >= 0 && (parent & kWildcard);
}

// psl_is_public_suffix() through the table, for checking it against libpsl
// (of a lower-case domain of at most 9 labels: libpsl's 8-dot limit is its
// callers').
bool TableIsPublicSuffix(const RuleTable& table, const std::string& domain) {
  std::string lower(domain.size(), '\0');
  Labels labels;
  if (!SplitLabels(domain, lower.data(), &labels)) return false;
  return IsPublicSuffix(table, labels, 0);
}

// The SHA-1 of `data` in hex: which file libpsl's built-in list was made
// from is known by this sum (psl_builtin_sha1sum()).
std::string Sha1Hex(const std::string& data) {
  auto rotl = [](uint32_t x, int s) { return (x << s) | (x >> (32 - s)); };
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476,
                   0xC3D2E1F0};
  std::string m = data;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back('\x80');
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>(bits >> (8 * i)));
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(&m[off + 4 * i]);
      w[i] = uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 |
             uint32_t{p[2]} << 8 | p[3];
    }
    for (int i = 16; i < 80; ++i)
      w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDC;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6;
      }
      const uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint32_t v : h)
    for (int s = 28; s >= 0; s -= 4) hex.push_back(kHex[(v >> s) & 15]);
  return hex;
}

bool IsAscii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 128) return false;
  return true;
}

// The ACE form of an IDN rule as libpsl's IDNA step gives it; empty where
// it gives none.
std::string ToAscii(const std::string& utf8) {
  char* ascii = nullptr;
  if (idn2_lookup_u8(reinterpret_cast<const uint8_t*>(utf8.c_str()),
                     reinterpret_cast<uint8_t**>(&ascii),
                     IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL) != IDN2_OK) {
    return {};
  }
  std::string out(ascii);
  idn2_free(ascii);
  return out;
}

// The section a "// ===BEGIN ...===" comment opens, as both parsers track
// it: the flag only tells ICANN from private rules, which no lookup here
// asks, so only the rule kinds matter below.
bool ParseRuleKind(std::string* rule, uint8_t* flags) {
  if (!rule->empty() && (*rule)[0] == '!') {
    rule->erase(0, 1);
    *flags = kException;
    return true;
  }
  if (!rule->empty() && (*rule)[0] == '*') {
    if (rule->size() < 2 || (*rule)[1] != '.') return false;  // ignored
    rule->erase(0, 2);
    *flags = kWildcard;
    return true;
  }
  *flags = 0;
  return true;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The rules of the list libpsl was built with, read as psl-make-dafsa read
// them (each stripped line a rule, both its UTF-8 and ACE forms, the first
// of equal rules kept). Empty unless `bytes` are that list's file.
bool BuiltinRules(const std::string& bytes, RuleTable* table) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t end = bytes.find_first_of("\r\n", pos);
    if (end == std::string::npos) end = bytes.size();
    size_t b = pos, e = end;
    pos = end + 1;
    while (b < e && IsSpace(bytes[b])) ++b;
    while (e > b && IsSpace(bytes[e - 1])) --e;
    std::string rule = bytes.substr(b, e - b);
    if (rule.empty() || rule.compare(0, 2, "//") == 0) continue;
    uint8_t flags;
    if (!ParseRuleKind(&rule, &flags)) continue;
    std::string ace = IsAscii(rule) ? rule : ToAscii(rule);
    if (ace.empty() && !rule.empty()) return false;  // the generator failed
    if (table->Contains(ace)) continue;
    table->Add(rule, flags, false);
    table->Add(ace, flags, false);
  }
  return true;
}

// The rules of a list file read as psl_load_fp() reads them: lines in
// fgets() pieces, a rule up to the first space, rules of 127 bytes or more
// dropped, equal rules' flags merged, an IDN rule's ACE form added.
bool FileRules(std::FILE* fp, RuleTable* table) {
  char buf[256];
  char* line = std::fgets(buf, sizeof(buf) - 1, fp);
  if (!line) return false;
  if (std::strlen(buf) == 16 && std::strncmp(buf, ".DAFSA@PSL_", 11) == 0)
    return false;  // a DAFSA file: left to libpsl
  do {
    while (IsSpace(*line)) ++line;
    if (!*line) continue;
    if (line[0] == '/' && line[1] == '/') continue;
    char* p = line;
    while (*line && !IsSpace(*line)) ++line;
    *line = 0;
    std::string rule(p);
    uint8_t flags;
    if (!ParseRuleKind(&rule, &flags)) continue;
    if (rule.size() >= 127) continue;
    table->Add(rule, flags, true);
    if (!IsAscii(rule)) {
      const std::string ace = ToAscii(rule);
      if (!ace.empty() && ace != rule && ace.size() < 127)
        table->Add(ace, table->rules().at(rule), true);
    }
  } while ((line = std::fgets(buf, sizeof(buf), fp)));
  return true;
}

// libpsl's built-in list is a DAFSA, and its lookup takes the byte that
// opens a UTF-8 sequence there (0x1F, as the last of a node's label 0x9F)
// for a return value, 15 (exception and wildcard), when a key ends just
// before it: "" (before the IDN top-level domains), or "b" before
// "b\xc3\xa1id\xc3\xa1r.no"; only some of those keys, as the DAFSA's
// nodes fall. Each such key takes the flags libpsl shows for it: a wildcard
// when "uriscan-probe.<key>" is a public suffix, an exception when the key
// (of two labels or more) is not.
void AddDafsaMarkerKeys(const psl_ctx_t* psl, RuleTable* table) {
  std::vector<std::string> keys;
  for (const auto& [rule, flags] : table->rules()) {
    (void)flags;
    for (size_t i = 0; i < rule.size(); ++i)
      if (static_cast<unsigned char>(rule[i]) >= 0xC0)
        keys.push_back(rule.substr(0, i));
  }
  for (const std::string& key : keys) {
    const std::string probe = "uriscan-probe." + key;
    const bool wildcard = psl_is_public_suffix(psl, probe.c_str()) != 0;
    const bool listed = table->Contains(key);
    if (!listed && !wildcard) continue;  // not found, as in the table
    uint8_t flags = listed ? table->rules().at(key) : kException;
    flags = (flags & ~kWildcard) | (wildcard ? kWildcard : 0);
    if (key.find('.') != std::string::npos) {
      flags &= ~kException;
      if (!psl_is_public_suffix(psl, key.c_str())) flags |= kException;
    }
    table->Set(key, flags);
  }
}

// Whether the table answers as libpsl's `psl` does for every rule's
// suffix, and for that suffix under one label more (where wildcards act).
bool AgreesWithLibpsl(const RuleTable& table, const psl_ctx_t* psl) {
  for (const auto& [suffix, flags] : table.rules()) {
    (void)flags;
    for (const std::string& domain : {suffix, "uriscan-probe." + suffix}) {
      if (domain.find('\0') != std::string::npos) return false;
      if (std::count(domain.begin(), domain.end(), '.') > kMaxDots)
        return false;  // no such list in practice: left to libpsl
      // A rule with upper case never meets a host, lower-cased first.
      if (std::any_of(domain.begin(), domain.end(),
                      [](char c) { return c >= 'A' && c <= 'Z'; })) {
        continue;
      }
      if (TableIsPublicSuffix(table, domain) !=
          (psl_is_public_suffix(psl, domain.c_str()) != 0)) {
        return false;
      }
    }
  }
  return true;
}

// The answers for a plain host: no empty label (no leading, trailing or
// doubled dot), no control byte. Lower-cases it into `lower`, then walks
// its suffixes from the last label leftwards, only while the table has an
// entry for them: the public suffix is the longest one libpsl's
// is_public_suffix() accepts (a rule no exception, or one label under a
// wildcard; the last label always), the registrable domain one label
// longer. False, `out` untouched, for any other host.
bool LookupPlain(const RuleTable& table, std::string_view host, char* lower,
                 PublicSuffixList::Suffixes* out) {
  const size_t n = host.size();
  char prev = '.';
  bool plain = true;
  for (size_t i = 0; i < n; ++i) {
    const char c = LowerAscii(host[i]);
    plain &= static_cast<unsigned char>(c) >= 0x20 && !(c == '.' && prev == '.');
    lower[i] = c;
    prev = c;
  }
  if (!plain || prev == '.') return false;
  // Right to left, a label at a time: the suffix lower[b..n), its hash h.
  uint64_t h = kHashSeed;
  size_t best = n;        // where the public suffix begins
  bool wildcard = false;  // the suffix one label shorter is a wildcard rule
  int labels = 0;
  for (size_t end = n;;) {
    size_t b = end;
    while (b > 0 && lower[b - 1] != '.') {
      --b;
      h = HashStep(h, static_cast<unsigned char>(lower[b]));
    }
    if (++labels > kMaxDots + 1) return false;  // past libpsl's 9 labels
    const int entry = table.Find(lower + b, n - b, h);
    const bool rule = entry >= 0 && !(entry & kNode);
    if (labels == 1 || (rule ? !(entry & kException) : wildcard)) best = b;
    if (entry < 0 || b == 0) break;  // no longer suffix is an entry
    wildcard = rule && (entry & kWildcard);
    end = b - 1;  // the '.'
    h = HashStep(h, '.');
  }
  const std::string_view text(lower, n);
  out->public_suffix = text.substr(best);
  if (best > 0) {  // the label before it (not empty: best >= 2)
    const size_t dot = text.rfind('.', best - 2);
    out->registrable_domain =
        text.substr(dot == std::string_view::npos ? 0 : dot + 1);
  }
  return true;
}

// The name a lookup reads: the IDNA form of a reg-name with percent-encoded
// UTF-8 (in a buffer of this thread's, until its next call), else `host`
// (raw bytes above 0x7f are libpsl's to read, as it does).
std::string_view NameOf(std::string_view host) {
  if (host.find('%') == std::string_view::npos || !IsAscii(host)) return host;
  thread_local std::string mapped;
  mapped.clear();
  if (!AppendIdnaHost(host, &mapped)) return host;
  return mapped;
}

struct Answer {
  std::string registrable, suffix;
  bool has_registrable, has_suffix;
};

}  // namespace

struct PublicSuffixList::Impl {
  psl_ctx_t* psl;
  bool owned;
  // The rules, when they answer as libpsl does; otherwise libpsl answers.
  std::shared_ptr<const RuleTable> table;
  // Which list a thread's cache holds answers of (a freed list's address
  // may be reused, its number never is).
  uint64_t id = next_id.fetch_add(1) + 1;
  static std::atomic<uint64_t> next_id;

  Suffixes LookupInLibpsl(std::string_view host) const;
};
std::atomic<uint64_t> PublicSuffixList::Impl::next_id{0};

namespace {

// The table of libpsl's built-in list, made once per process: from the
// file the list was made from (psl_builtin_filename()) when its SHA-1 is
// the one libpsl was built from, and when it agrees with libpsl.
std::shared_ptr<const RuleTable> BuiltinTable() {
  static const std::shared_ptr<const RuleTable> table = [] {
    std::shared_ptr<RuleTable> t;
    const char* file = psl_builtin_filename();
    const char* sum = psl_builtin_sha1sum();
    if (!file || !sum || !*file) return t;
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return t;
    if (Sha1Hex(bytes) != sum) return t;
    auto rules = std::make_shared<RuleTable>();
    if (!BuiltinRules(bytes, rules.get())) return t;
    AddDafsaMarkerKeys(psl_builtin(), rules.get());
    if (!rules->Freeze() || !AgreesWithLibpsl(*rules, psl_builtin()))
      return t;
    return rules;
  }();
  return table;
}

std::shared_ptr<const RuleTable> FileTable(const std::string& file,
                                           const psl_ctx_t* psl) {
  std::FILE* fp = std::fopen(file.c_str(), "r");
  if (!fp) return nullptr;
  auto rules = std::make_shared<RuleTable>();
  const bool read = FileRules(fp, rules.get());
  std::fclose(fp);
  if (!read) return nullptr;
  if (!rules->Freeze() || !AgreesWithLibpsl(*rules, psl)) return nullptr;
  return rules;
}

}  // namespace

PublicSuffixList::PublicSuffixList()
    : impl_(new Impl{const_cast<psl_ctx_t*>(psl_builtin()), false,
                     BuiltinTable()}) {}

PublicSuffixList::PublicSuffixList(Impl* impl) : impl_(impl) {}

std::unique_ptr<PublicSuffixList> PublicSuffixList::FromFile(
    const std::string& file) {
  psl_ctx_t* psl = psl_load_file(file.c_str());
  if (!psl) return nullptr;
  return std::unique_ptr<PublicSuffixList>(
      new PublicSuffixList(new Impl{psl, true, FileTable(file, psl)}));
}

PublicSuffixList::~PublicSuffixList() {
  if (impl_->owned) psl_free(impl_->psl);
  delete impl_;
}

bool PublicSuffixList::HasTable() const { return impl_->table != nullptr; }

PublicSuffixList::Suffixes PublicSuffixList::Impl::LookupInLibpsl(
    std::string_view host) const {
  // One cache per thread, emptied when another list asks.
  thread_local std::unordered_map<std::string, Answer> cache;
  thread_local uint64_t cache_owner = 0;
  thread_local std::string lower;
  if (cache_owner != id) {
    cache.clear();
    cache_owner = id;
  }
  lower.assign(host);
  for (char& c : lower) c = LowerAscii(c);
  auto it = cache.find(lower);
  if (it == cache.end()) {
    if (cache.size() >= kCacheSize) cache.clear();
    const char* r = psl_registrable_domain(psl, lower.c_str());
    const char* p = psl_unregistrable_domain(psl, lower.c_str());
    it = cache.emplace(lower, Answer{r ? r : "", p ? p : "", r != nullptr,
                                     p != nullptr})
             .first;
  }
  Suffixes out;
  if (it->second.has_registrable) out.registrable_domain = it->second.registrable;
  if (it->second.has_suffix) out.public_suffix = it->second.suffix;
  return out;
}

PublicSuffixList::Suffixes PublicSuffixList::Lookup(
    std::string_view host) const {
  host = NameOf(host);
  if (host.empty()) return {};
  const RuleTable* table = impl_->table.get();
  // libpsl reads a C string: a host with a NUL byte is left to it, as is
  // one with another control byte where libpsl looks.
  if (!table || std::memchr(host.data(), '\0', host.size()))
    return impl_->LookupInLibpsl(host);
  // The lower-cased host the answers point into: a plain array for the
  // usual host, a string for a longer one.
  thread_local char small[256];
  thread_local std::string large;
  char* lower = small;
  if (host.size() > sizeof(small)) {
    if (large.size() < host.size()) large.resize(host.size());
    lower = large.data();
  }
  // Lists of URLs and logs repeat a host on consecutive rows: the answer
  // of this thread's last lookup is kept (its views point into `lower`,
  // which only the next lookup rewrites).
  thread_local std::string last_host;
  thread_local uint64_t last_list = 0;  // Impl::id, 0 for none
  thread_local Suffixes last;
  if (impl_->id == last_list && host == last_host) return last;
  Suffixes out;
  if (LookupPlain(*table, host, lower, &out)) {
    last_list = impl_->id;
    last_host.assign(host);
    last = out;
    return out;
  }
  last_list = 0;
  Labels labels;
  if (!SplitLabels(host, lower, &labels))
    return impl_->LookupInLibpsl(host);
  // psl_unregistrable_domain(): the first suffix from the left that is a
  // public suffix (the last label always is); psl_registrable_domain():
  // the suffix one label longer, none for a host with a leading '.'.
  int k = 0;
  while (!IsPublicSuffix(*table, labels, k)) ++k;
  const std::string_view text(labels.text, labels.size);
  out.public_suffix = text.substr(labels.begin[k]);
  if (k > 0 && host[0] != '.')
    out.registrable_domain = text.substr(labels.begin[k - 1]);
  return out;
}

std::optional<std::string_view> PublicSuffixList::Subdomain(
    std::string_view host) const {
  host = NameOf(host);
  const auto registrable = Lookup(host).registrable_domain;
  if (!registrable) return std::nullopt;
  if (registrable->size() >= host.size()) return std::string_view();
  return host.substr(0, host.size() - registrable->size() - 1);
}

bool AppendIdnaHost(std::string_view host, std::string* out) {
  std::string name;  // the decoded bytes
  bool ascii = true;
  for (size_t i = 0; i < host.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(host[i]);
    if (c == '%' && i + 2 < host.size() &&
        chars::Is(host[i + 1], chars::kHexDig) &&
        chars::Is(host[i + 2], chars::kHexDig)) {
      c = static_cast<unsigned char>(chars::HexValue(host[i + 1]) * 16 +
                                     chars::HexValue(host[i + 2]));
      i += 2;
    }
    if (c == 0) return false;  // libidn2 reads a C string
    ascii &= c < 0x80;
    name.push_back(static_cast<char>(c));
  }
  if (ascii) return false;
  for (size_t i = 0; i < name.size();) {
    const size_t n = static_cast<unsigned char>(name[i]) < 0x80
                         ? 1 : Utf8SequenceAt(name, i);
    if (n == 0) return false;
    i += n;
  }
  std::string ace;
  if (!surt_internal::ToIdnaAscii(name, &ace)) return false;
  for (char c : ace)
    if (!(chars::Is(c, chars::kAlpha | chars::kDigit) || c == '-' ||
          c == '_' || c == '.'))
      return false;
  // A character UTS #46 maps to a dot (U+2488 is "1.") made an empty label.
  if (ace.empty() || ace[0] == '.' || ace.find("..") != std::string::npos)
    return false;
  out->append(ace);
  return true;
}

}  // namespace uriscan
