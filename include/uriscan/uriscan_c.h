/* SPDX-License-Identifier: MIT */
/* The C API of uriscan (C11, also valid C++): batch scans into caller-owned
   columns, normalization, 64-bit fingerprints, names, the version. */
#ifndef URISCAN_URISCAN_C_H_
#define URISCAN_URISCAN_C_H_

#include <stddef.h>
#include <stdint.h>

#include "uriscan/export.h"
#include "uriscan/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Conventions, for every function below:
   - No C++ exception ever leaves the library. Failures are uriscan_status
     codes; running out of memory is URISCAN_OUT_OF_MEMORY.
   - Text goes in as a (pointer, length) pair: it need not be NUL-terminated
     and may hold any byte. The pointer may be NULL when the length is 0.
   - The caller owns every buffer it passes. The library reads or writes it
     during the call only and keeps no pointer to it afterwards.
   - Strings the library returns (names, messages, the version) are static,
     NUL-terminated, valid for the life of the process; never free them.
   - Handles (uriscan_scanner) are created by uriscan_scanner_new() and
     released by uriscan_scanner_free(), by the caller, exactly once.
   - Thread safety: a handle is used by one thread at a time (different
     handles on different threads run in parallel); every function that
     takes no handle may be called from any thread at any time.
   - Offsets are byte offsets, 32-bit: one call handles less than 4 GiB. */

/* ---------------------------------------------------------------------- */
/* Results, error kinds, profiles, flags.                                 */

typedef enum uriscan_status {
  URISCAN_OK = 0,
  /* A NULL pointer where data is needed, offsets that decrease, an
     unknown profile or name. Nothing was written. */
  URISCAN_INVALID_ARGUMENT = 1,
  /* The output buffer is too small; the size needed was stored. */
  URISCAN_BUFFER_TOO_SMALL = 2,
  /* The URI reference is not valid RFC 3986 (single-reference calls). */
  URISCAN_INVALID_URI = 3,
  /* The input is 4 GiB or more: offsets are 32-bit. Cut it up. */
  URISCAN_TOO_LARGE = 4,
  URISCAN_OUT_OF_MEMORY = 5,
  /* A bug: an unexpected exception inside the library. */
  URISCAN_INTERNAL_ERROR = 6,
  /* A file could not be read: missing, unreadable, damaged (gzip, zstd),
     cut short while it was read (uriscan_log_reader_next()). */
  URISCAN_READ_ERROR = 7,
  /* uriscan_log_reader_stop() ended the reading. */
  URISCAN_STOPPED = 8,
  /* A seen-state failed: in use by another process, damaged, of another
     profile, a disk error, an output that may not be written; the message
     (the command's for the same case) says which. */
  URISCAN_STATE_ERROR = 9,
  /* Not a status. The *_MAX_ENUM values give each enum the range of a
     32-bit int, so that any value from 0 up may be passed and is checked
     (an unknown one is URISCAN_INVALID_ARGUMENT, or a NULL name). */
  URISCAN_STATUS_MAX_ENUM = 0x7FFFFFFF
} uriscan_status;

/* The RFC 3986 rule an invalid reference breaks (the values of
   uriscan::ErrorKind and of the error_kind column). */
typedef enum uriscan_error_kind {
  URISCAN_ERROR_NONE = 0,               /* valid */
  URISCAN_ERROR_DISALLOWED_BYTE = 1,    /* outside every class (2) */
  URISCAN_ERROR_BAD_PERCENT_ENCODING = 2, /* "%" HEXDIG HEXDIG (2.1) */
  URISCAN_ERROR_BAD_SCHEME = 3,         /* scheme (3.1) */
  URISCAN_ERROR_BAD_USERINFO = 4,       /* userinfo (3.2.1) */
  URISCAN_ERROR_BAD_HOST = 5,           /* host (3.2.2) */
  URISCAN_ERROR_BAD_IP_LITERAL = 6,     /* IP-literal (3.2.2) */
  URISCAN_ERROR_BAD_PORT = 7,           /* port (3.2.3) */
  URISCAN_ERROR_BAD_PATH = 8,           /* path (3.3) */
  URISCAN_ERROR_BAD_QUERY = 9,          /* query (3.4) */
  URISCAN_ERROR_BAD_FRAGMENT = 10,      /* fragment (3.5) */
  URISCAN_ERROR_TOO_LONG = 11,          /* 2^32 - 1 bytes or more */
  URISCAN_ERROR_KIND_MAX_ENUM = 0x7FFFFFFF /* not a kind */
} uriscan_error_kind;
#define URISCAN_ERROR_KIND_COUNT 12

/* Normalization profiles (see normalize.h): "syntax" is RFC 3986 6.2.2,
   "scheme" adds 6.2.3, "crawler" adds what crawler frontiers merge (not an
   RFC equivalence; the default tracking-parameter list), "w3lib" is what
   Scrapy's w3lib.url.canonicalize_url returns. */
typedef enum uriscan_profile {
  URISCAN_PROFILE_SYNTAX = 0,
  URISCAN_PROFILE_SCHEME = 1,
  URISCAN_PROFILE_CRAWLER = 2,
  URISCAN_PROFILE_W3LIB = 3,
  URISCAN_PROFILE_MAX_ENUM = 0x7FFFFFFF /* not a profile */
} uriscan_profile;

/* Bits of the flags column: which components are defined (their delimiter
   is present: "http://a" has no query, "http://a?" an empty one), the host
   kind, and hints. 0 for an invalid row. */
#define URISCAN_FLAG_HAS_SCHEME 0x0001u
#define URISCAN_FLAG_HAS_AUTHORITY 0x0002u
#define URISCAN_FLAG_HAS_USERINFO 0x0004u
#define URISCAN_FLAG_HAS_PORT 0x0008u
#define URISCAN_FLAG_HAS_QUERY 0x0010u
#define URISCAN_FLAG_HAS_FRAGMENT 0x0020u
#define URISCAN_FLAG_HOST_KIND_SHIFT 6 /* two bits: */
#define URISCAN_FLAG_HOST_KIND_MASK 0x00C0u
#define URISCAN_HOST_REG_NAME 0
#define URISCAN_HOST_IPV4 1
#define URISCAN_HOST_IPV6 2
#define URISCAN_HOST_IPVFUTURE 3
#define URISCAN_FLAG_HAS_PCT_ENCODED 0x0100u /* a '%' anywhere */
#define URISCAN_FLAG_HAS_UPPER_CASE 0x0200u  /* A-Z in scheme or host */
#define URISCAN_FLAG_HAS_DOT_SEGMENT 0x0400u /* a "." or ".." segment */

/* ---------------------------------------------------------------------- */
/* Names and version. Thread-safe; the strings are static.                */

/* The version of the library linked, "MAJOR.MINOR.PATCH". Compare it with
   URISCAN_VERSION_STRING (the headers compiled against) to detect a
   mismatch. */
URISCAN_EXPORT const char* uriscan_version(void);
/* The SIMD target the scanner dispatches to on this machine ("AVX2"). */
URISCAN_EXPORT const char* uriscan_target_name(void);
/* "ok", "invalid-argument", ...; NULL for a value not in the enum. */
URISCAN_EXPORT const char* uriscan_status_name(uriscan_status status);
/* The stable short name of an error kind ("none", "pct-encoded", "scheme",
   ... as the uriscan command prints them); NULL for a value not in the
   enum. */
URISCAN_EXPORT const char* uriscan_error_name(uriscan_error_kind kind);
/* One sentence describing an error kind; NULL for a value not in the enum. */
URISCAN_EXPORT const char* uriscan_error_message(uriscan_error_kind kind);
/* "syntax", "scheme", "crawler"; NULL for a value not in the enum. */
URISCAN_EXPORT const char* uriscan_profile_name(uriscan_profile profile);
/* The profile named `name` (length bytes) into *profile: URISCAN_OK, or
   URISCAN_INVALID_ARGUMENT when no profile has that name or profile is
   NULL. */
URISCAN_EXPORT uriscan_status uriscan_profile_from_name(
    const char* name, size_t length, uriscan_profile* profile);

/* ---------------------------------------------------------------------- */
/* Scanning.                                                              */

/* An opaque scanner: the SIMD kernels' scratch (about 120 KiB) plus the
   columns of its last scan, reused from call to call. Created by
   uriscan_scanner_new() (NULL when out of memory), released by
   uriscan_scanner_free() (NULL is allowed). One thread at a time. */
typedef struct uriscan_scanner uriscan_scanner;
URISCAN_EXPORT uriscan_scanner* uriscan_scanner_new(void);
URISCAN_EXPORT void uriscan_scanner_free(uriscan_scanner* scanner);

/* The output of a scan: one caller-owned array per column, each with room
   for as many elements as there are rows. A NULL member skips that column.
   Row i's values go to element i.

   The boundary columns are absolute byte offsets into the scanned text
   (`data` or `text` below), so a component of row i is the slice
   [begin, end) of it. Over one reference:

     foo://user@example.com:8042/over?n=1#nose
     ^  ^  ^   ^^          ^^   ^    ^^   ^   ^
     |  |  |   ||          ||   |    ||   |   uri_end (one past the end)
     |  |  |   ||          ||   |    ||   fragment_begin
     |  |  |   ||          ||   |    |query_begin
     |  |  |   ||          ||   |    path_end (the '?')
     |  |  |   ||          ||   path_begin (the port ends here)
     |  |  |   ||          |port_begin
     |  |  |   ||          host_end (the ':')
     |  |  |   |host_begin
     |  |  |   userinfo_end (the '@')
     |  |  authority_begin (userinfo begins here)
     |  scheme_end (the ':')
     uri_begin

   The scheme is [uri_begin, scheme_end), the query [query_begin,
   fragment_begin - 1) when there is a fragment, else [query_begin,
   uri_end). An undefined component is empty and sits where it would
   start; `flags` says which are defined. For an invalid row every boundary
   column holds uri_begin except uri_end, flags is 0, error_kind is a
   uriscan_error_kind and error_offset the first offending byte, counted
   from uri_begin. A valid row has error_kind 0 and error_offset 0. */
typedef struct uriscan_columns {
  uint32_t* uri_begin;
  uint32_t* scheme_end;
  uint32_t* authority_begin;
  uint32_t* userinfo_end;
  uint32_t* host_begin;
  uint32_t* host_end;
  uint32_t* port_begin;
  uint32_t* path_begin;
  uint32_t* path_end;
  uint32_t* query_begin;
  uint32_t* fragment_begin;
  uint32_t* uri_end;
  uint16_t* flags;
  uint8_t* error_kind;
  uint32_t* error_offset;
} uriscan_columns;

/* Scans `count` URI references stored back to back in `data` (the Arrow
   string-array layout): reference i is [offsets[i], offsets[i + 1]).
   `offsets` holds count + 1 non-decreasing values; no byte at or past
   data + offsets[count] is read. `data` may be NULL only if every offset is
   0. Writes count rows into the non-NULL columns of *out. An invalid
   reference is a row with an error, never a failure of the call.
   Returns URISCAN_OK; URISCAN_INVALID_ARGUMENT (scanner, out or, with
   count > 0, offsets NULL; decreasing offsets; nothing written);
   URISCAN_OUT_OF_MEMORY. Caller owns data, offsets and the columns. */
URISCAN_EXPORT uriscan_status uriscan_scan(uriscan_scanner* scanner,
                                           const char* data,
                                           const uint32_t* offsets,
                                           size_t count,
                                           const uriscan_columns* out);

/* The number of lines in `text`: one per "\n", plus a last line without
   one. An empty text has 0 lines. Thread-safe. */
URISCAN_EXPORT size_t uriscan_count_lines(const char* text, size_t length);

/* Scans newline-separated text in place, one row per line: the "\n" and a
   "\r" just before it are not part of the row (a lone "\r" stays and makes
   the row invalid). Offsets point into `text`. With room for the rows
   (capacity >= the line count) writes them into the non-NULL columns of
   *out and returns URISCAN_OK; otherwise writes nothing and returns
   URISCAN_BUFFER_TOO_SMALL. Either way *rows is the line count
   (uriscan_count_lines() gives it up front). URISCAN_TOO_LARGE when length
   is 4 GiB - 1 or more; URISCAN_INVALID_ARGUMENT when scanner, out or rows
   is NULL, or text is NULL with length > 0. Caller owns text, the columns
   and *rows. */
URISCAN_EXPORT uriscan_status uriscan_scan_lines(uriscan_scanner* scanner,
                                                 const char* text,
                                                 size_t length,
                                                 const uriscan_columns* out,
                                                 size_t capacity,
                                                 size_t* rows);

/* Parses one URI reference (RFC 3986 URI-reference). URISCAN_OK when it is
   valid (then *kind = URISCAN_ERROR_NONE, *offset = 0);
   URISCAN_INVALID_URI with the rule broken and the first offending byte
   otherwise. `kind` and `offset` may each be NULL. Thread-safe. */
URISCAN_EXPORT uriscan_status uriscan_check(const char* uri, size_t length,
                                            uriscan_error_kind* kind,
                                            uint32_t* offset);

/* ---------------------------------------------------------------------- */
/* Normalization and fingerprints.                                        */

/* Writes the normal form of one URI reference under `profile` into `out`.
   *out_length is set to the normal form's length in bytes (0 for an
   invalid reference). When capacity >= *out_length the bytes are written,
   followed by a NUL when capacity > *out_length, and the result is
   URISCAN_OK; otherwise nothing is written and the result is
   URISCAN_BUFFER_TOO_SMALL, so a call with out = NULL and capacity = 0 is
   the size query. URISCAN_INVALID_URI for an invalid reference (nothing
   written), but under "w3lib" for one w3lib canonicalizes too ("?p[]=1":
   its form, URISCAN_OK); URISCAN_INVALID_ARGUMENT for an unknown profile, a NULL
   out_length, or out NULL with capacity > 0. Caller owns uri and out.
   Thread-safe. */
URISCAN_EXPORT uriscan_status uriscan_normalize(const char* uri,
                                                size_t length,
                                                uriscan_profile profile,
                                                char* out, size_t capacity,
                                                size_t* out_length);

/* The 64-bit fingerprint of one reference under `profile`: XXH3 of its
   normal form, seeded by the profile, the keys of `uriscan dedup --keys`.
   Stable across machines and releases while the profile's version stays.
   URISCAN_OK with a nonzero *key for a valid reference (and under "w3lib"
   for an invalid one w3lib canonicalizes); URISCAN_INVALID_URI with
   *key = 0 for an invalid one; URISCAN_INVALID_ARGUMENT for an unknown
   profile or a NULL key. Thread-safe. */
URISCAN_EXPORT uriscan_status uriscan_fingerprint64(uriscan_profile profile,
                                                    const char* uri,
                                                    size_t length,
                                                    uint64_t* key);

/* The fingerprints of a batch in the layout of uriscan_scan(), into
   keys[0 .. count - 1] (caller-owned, room for count keys); an invalid row
   gets 0. Same results as uriscan_fingerprint64 row by row, faster.
   Returns as uriscan_scan(), plus URISCAN_INVALID_ARGUMENT for an unknown
   profile or NULL keys (with count > 0). */
URISCAN_EXPORT uriscan_status uriscan_fingerprint_batch(
    uriscan_scanner* scanner, uriscan_profile profile, const char* data,
    const uint32_t* offsets, size_t count, uint64_t* keys);

/* The fingerprints of each line of `text` (split as uriscan_scan_lines()
   splits) into keys[0 .. *rows - 1], when capacity >= the line count;
   otherwise URISCAN_BUFFER_TOO_SMALL and nothing written. *rows is the line
   count either way. Other results as uriscan_scan_lines(). */
URISCAN_EXPORT uriscan_status uriscan_fingerprint_lines(
    uriscan_scanner* scanner, uriscan_profile profile, const char* text,
    size_t length, uint64_t* keys, size_t capacity, size_t* rows);

/* ---------------------------------------------------------------------- */
/* Log analytics: query parameters and decoding.                          */

/* How uriscan_decode() and uriscan_decode_spans() read a '+':
   URISCAN_DECODE_PERCENT keeps it (paths, fragments, whole queries),
   URISCAN_DECODE_FORM makes it a space first (application/
   x-www-form-urlencoded, for parameter names and values). Both turn "%HH"
   into that byte; a '%' without two hex digits after it stays. */
typedef enum uriscan_decoding {
  URISCAN_DECODE_PERCENT = 0,
  URISCAN_DECODE_FORM = 1,
  URISCAN_DECODING_MAX_ENUM = 0x7FFFFFFF /* not a decoding */
} uriscan_decoding;

/* Decodes `text` (length bytes) into out. Decoding never grows text, so a
   capacity of `length` always suffices. *out_length is set to the decoded
   length; when capacity >= *out_length the bytes are written, followed by
   a NUL when capacity > *out_length, and the result is URISCAN_OK;
   otherwise nothing is written and the result is URISCAN_BUFFER_TOO_SMALL
   (out = NULL, capacity = 0 is the size query). URISCAN_INVALID_ARGUMENT
   for an unknown decoding, a NULL out_length, text NULL with length > 0 or
   out NULL with capacity > 0. The decoded bytes may be any bytes (%00
   included). Thread-safe. */
URISCAN_EXPORT uriscan_status uriscan_decode(const char* text, size_t length,
                                             uriscan_decoding how, char* out,
                                             size_t capacity,
                                             size_t* out_length);

/* Decodes the spans [begin[k], end[k]) of `data`, k < count, back to back
   into out, decoded span k being [out_offsets[k], out_offsets[k + 1])
   (out_offsets has room for count + 1 values, out_offsets[0] = 0). `out`
   needs room for the spans' total length (sum of end[k] - begin[k]).
   Spans that hold no
   '%' (or '+') are copied a SIMD vector at a time: bytes of data up to the
   largest end[k] are read. URISCAN_INVALID_ARGUMENT (nothing written) for
   an unknown decoding, a span with end < begin, or a NULL array with
   count > 0; URISCAN_BUFFER_TOO_SMALL when capacity is below the total
   (out_offsets[count] is then set to the total). Thread-safe. */
URISCAN_EXPORT uriscan_status uriscan_decode_spans(
    const char* data, const uint32_t* begin, const uint32_t* end,
    size_t count, uriscan_decoding how, char* out, size_t capacity,
    uint32_t* out_offsets);

/* The query parameters of a batch, one element per parameter, in the order
   of the rows and of each query; caller-owned arrays, a NULL member skips
   that column. `row` is the row's index; the others are absolute byte
   offsets into the scanned data, as the span columns are, so parameter k's
   name is [name_begin[k], name_end[k]) and its value [value_begin[k],
   value_end[k]), both as written (decode them with uriscan_decode_spans()
   and URISCAN_DECODE_FORM). A query splits on '&' into fields and a field
   at its first '=' into name and value; a field without '=' has an empty
   value at its end; empty fields give no parameter; ';' is no separator.
   Invalid rows and rows without a query have none. */
typedef struct uriscan_params {
  uint32_t* row;
  uint32_t* name_begin;
  uint32_t* name_end;
  uint32_t* value_begin;
  uint32_t* value_end;
} uriscan_params;

/* Scans a batch in the layout of uriscan_scan() and splits the queries of
   its valid rows into parameters. With room for them (capacity >= their
   count) writes them into the non-NULL columns of *out and returns
   URISCAN_OK; otherwise writes nothing and returns
   URISCAN_BUFFER_TOO_SMALL. Either way *params is the count (a call with
   capacity 0 is the count query). Other results as uriscan_scan(), plus
   URISCAN_INVALID_ARGUMENT for a NULL out or params. */
URISCAN_EXPORT uriscan_status uriscan_query_params(
    uriscan_scanner* scanner, const char* data, const uint32_t* offsets,
    size_t count, const uriscan_params* out, size_t capacity, size_t* params);

/* ---------------------------------------------------------------------- */
/* Reading files of references: lists, text, web server logs, tables.    */

/* A reader of files (uriscan/ingest.h's LogReader): plain, gzip or zstd,
   told by their first bytes; a run of whole records at a time, in bounded
   memory whatever the size of a file or of its lines. */
typedef struct uriscan_log_reader uriscan_log_reader;

/* One reference of a run: its file (an index into the paths given), its
   line (from 1) and its bytes, valid until the next call on the reader. */
typedef struct uriscan_log_ref {
  size_t file;
  uint64_t line;
  const char* uri;
  size_t uri_length;
} uriscan_log_ref;

/* A reader of the `count` NUL-terminated `paths`, read one after the
   other. `format` is "lines" (every line a reference), "text", "clf",
   "combined", "tsv", "csv" or "jsonl"; `field` and `base` (NULL for none)
   and `lenient` (0 or 1) are those of `uriscan extract`. Files are opened
   as they are reached. NULL when the options do not hold together, with
   the reason (NUL-terminated, cut to `error_size` bytes) in `error` when
   it is not NULL. */
URISCAN_EXPORT uriscan_log_reader* uriscan_log_reader_new(
    const char* const* paths, size_t count, const char* format,
    const char* field, const char* base, int lenient, char* error,
    size_t error_size);
URISCAN_EXPORT void uriscan_log_reader_free(uriscan_log_reader* reader);

/* The next run's references into *refs and *count (*count may be 0: a run
   of records that hold none): URISCAN_OK; URISCAN_OK with *refs NULL and
   *count 0 after the last file; URISCAN_READ_ERROR for a file that cannot
   be read (after the references before the failure), the message, which
   names the file, in `error`; URISCAN_STOPPED after
   uriscan_log_reader_stop(); URISCAN_INVALID_ARGUMENT for a NULL reader,
   refs or count. */
URISCAN_EXPORT uriscan_status uriscan_log_reader_next(
    uriscan_log_reader* reader, const uriscan_log_ref** refs, size_t* count,
    char* error, size_t error_size);

/* Makes a reader that waits for input (a FIFO, a terminal) stop within
   100 ms: its uriscan_log_reader_next() returns URISCAN_STOPPED. The one
   function that may be called on a reader from another thread. */
URISCAN_EXPORT void uriscan_log_reader_stop(uriscan_log_reader* reader);

/* ---------------------------------------------------------------------- */
/* A persistent seen-set held open by a long-running program
   (uriscan/seen_state.h): the state directory of
   `uriscan dedup --state=DIR`, its lock held until uriscan_seen_state_free().
   Every function but _open and _free returns URISCAN_STATE_ERROR with
   the message in `error` (cut to `error_size` bytes; `error` may be NULL)
   when the state fails, URISCAN_INVALID_ARGUMENT for a NULL handle or
   buffer. */

typedef struct uriscan_seen_state uriscan_seen_state;

typedef struct uriscan_seen_state_options {
  /* "syntax", "scheme", "crawler" or "w3lib"; NULL: the state's profile
     (a new state: "scheme"). With the crawler profile, `tracking_params`
     (comma-separated; NULL: the profile's default list) and `fold_www`. */
  const char* profile;
  const char* tracking_params;
  int fold_www;
  /* Keys the caller makes (only the *_keys functions then): the state's
     identity is "keys:" keys_of. NULL: keys of the profile. */
  const char* keys_of;
  uint32_t shards;     /* a new state's shards; 0: none */
  uint64_t memory;     /* bytes; 0: 1 GiB */
  int read_only;       /* 1: the shared lock, lookups only */
  int inline_merges;   /* 1: each commit makes its merges (no thread) */
} uriscan_seen_state_options;

/* Opens (or makes) the state `dir`; `options` may be NULL (all defaults).
   NULL on failure, with the reason in `error`. */
URISCAN_EXPORT uriscan_seen_state* uriscan_seen_state_open(
    const char* dir, const uriscan_seen_state_options* options, char* error,
    size_t error_size);
/* Discards what was not committed and lets the lock go. */
URISCAN_EXPORT void uriscan_seen_state_free(uriscan_seen_state* state);

/* Rows in the layout of uriscan_scan() (row i is [offsets[i],
   offsets[i + 1]) of `data`): is_new[i] = 1 for a row that is the first of
   its class since the last commit and absent from the state, else 0
   (invalid rows too). */
URISCAN_EXPORT uriscan_status uriscan_seen_state_add(
    uriscan_seen_state* state, const char* data, const uint32_t* offsets,
    size_t count, uint8_t* is_new, char* error, size_t error_size);
URISCAN_EXPORT uriscan_status uriscan_seen_state_add_keys(
    uriscan_seen_state* state, const uint64_t* keys, size_t count,
    uint8_t* is_new, char* error, size_t error_size);
/* seen[i] = 1 for a row (key) added before, committed or not; adds
   nothing. */
URISCAN_EXPORT uriscan_status uriscan_seen_state_contains(
    uriscan_seen_state* state, const char* data, const uint32_t* offsets,
    size_t count, uint8_t* seen, char* error, size_t error_size);
URISCAN_EXPORT uriscan_status uriscan_seen_state_contains_keys(
    uriscan_seen_state* state, const uint64_t* keys, size_t count,
    uint8_t* seen, char* error, size_t error_size);
/* Makes what was added since the last commit part of the state, durably.
   With `output` (a path; NULL for none), the new rows since the last
   commit go, one a line, to that new file, which appears whole with the
   commit; *written (may be NULL) gets their count. */
URISCAN_EXPORT uriscan_status uriscan_seen_state_commit(
    uriscan_seen_state* state, const char* output, uint64_t* written,
    char* error, size_t error_size);
/* Forgets what was added since the last commit. */
URISCAN_EXPORT uriscan_status uriscan_seen_state_discard(
    uriscan_seen_state* state);

typedef struct uriscan_seen_state_stats {
  uint64_t keys, pending, invalid, runs, shards, bytes;
  uint64_t written_bytes, rewritten_bytes, commits, merges, memory_bytes;
} uriscan_seen_state_stats;
URISCAN_EXPORT uriscan_status uriscan_seen_state_stats_get(
    uriscan_seen_state* state, uriscan_seen_state_stats* stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* URISCAN_URISCAN_C_H_ */
