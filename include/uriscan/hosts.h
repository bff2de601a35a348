// SPDX-License-Identifier: MIT
// Host parts from the Public Suffix List (registrable domain, public
// suffix, subdomain) and the SURT key of the Internet Archive's surt
// library: the host columns of `uriscan parse --columns`.
#ifndef URISCAN_HOSTS_H_
#define URISCAN_HOSTS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "uriscan/export.h"
#include "uriscan/uri.h"

namespace uriscan {

// The Public Suffix List (publicsuffix.org) as libpsl reads it: its
// built-in copy, or a list file. The answers are libpsl's, found in a hash
// table of the list's rules built at construction (tens of ns a host); a
// list the table cannot be made for exactly (libpsl's built-in list when
// the file it was made from, psl_builtin_filename(), is gone or changed; a
// DAFSA file) is asked of libpsl, each thread keeping the answers for the
// hosts it asked about last. Lookups are safe from any number of threads
// at once.
class URISCAN_EXPORT PublicSuffixList {
 public:
  // libpsl's built-in list.
  PublicSuffixList();
  // The list in `file` (the format of public_suffix_list.dat); nullptr when
  // it cannot be read.
  static std::unique_ptr<PublicSuffixList> FromFile(const std::string& file);
  ~PublicSuffixList();
  PublicSuffixList(const PublicSuffixList&) = delete;
  PublicSuffixList& operator=(const PublicSuffixList&) = delete;

  // Of a reg-name host (any case; the answers are lower case; a host of
  // percent-encoded UTF-8 is read in its IDNA form, AppendIdnaHost()): its
  // registrable domain (the public suffix and one label more) and its
  // public suffix. nullopt for an empty host, for the registrable domain of
  // a host that is itself a public suffix, and where libpsl has no answer.
  // The views stay valid until this thread's next lookup.
  struct Suffixes {
    std::optional<std::string_view> registrable_domain, public_suffix;
  };
  Suffixes Lookup(std::string_view host) const;
  // The host's labels left of its registrable domain, as written (of the
  // IDNA form where Lookup() reads one; "" for a host that is its
  // registrable domain); nullopt where the registrable domain is.
  std::optional<std::string_view> Subdomain(std::string_view host) const;

  // Whether lookups use the table (false: each host is asked of libpsl).
  bool HasTable() const;

 private:
  struct Impl;
  explicit PublicSuffixList(Impl* impl);
  Impl* impl_;
};

// The one mapping of internationalized host names behind every derived
// host column, the crawler profile and --lenient: the host's bytes, its
// percent-encoded triplets decoded (RFC 3986 sec. 3.2.2 reads them as
// UTF-8), as IDNA A-labels, the way the Internet Archive's surt library
// maps them (IDNA 2003; here libidn2's UTS #46 transitional processing:
// "fa%C3%9F.de" (sharp s) and its raw UTF-8 are "fass.de", "B%C3%9Ccher.de" is
// "xn--bcher-kva.de"). Appends the A-labels and returns true when the
// decoded host holds a non-ASCII character, is well-formed UTF-8 and maps
// to a name of ASCII letters, digits, '-', '_' and '.'; false, appending
// nothing, otherwise (an ASCII host is left to the caller as it is).
URISCAN_EXPORT bool AppendIdnaHost(std::string_view host, std::string* out);

// Appends what surt.surt(url) of the Internet Archive's surt library
// (0.3.1) returns with its defaults: its Google and IA canonicalizers, then
// the SURT form without scheme, "com,example)/path?query". For a URL with
// a scheme. Returns false, appending nothing, where that library raises
// instead (a port above 65535).
URISCAN_EXPORT bool AppendIaSurt(std::string_view url, std::string* out);

// Appends the SURT shape of a reference in the crawler normal form (the
// `surt_crawler` column): host labels reversed and joined by ',' (an IP
// address as written) without one leading "www.", ":PORT" for a port,
// ')', the path, '?' and the query. False, appending nothing, for an
// invalid reference or one without a host.
URISCAN_EXPORT bool AppendCrawlerSurt(const UriReference& crawler_normal,
                                      std::string* out);

}  // namespace uriscan

#endif  // URISCAN_HOSTS_H_
