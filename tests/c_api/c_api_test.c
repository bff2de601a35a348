/* SPDX-License-Identifier: MIT */
/* The C API from a C11 program: every function, its size queries and its
   argument checks. Plain C with no framework: each failed check prints its
   line, and the exit status is the number of failures (capped at 1). Also
   built against an installed uriscan by tools/package-test.sh. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uriscan/uriscan_c.h"

static int failures = 0;

#define CHECK(cond)                                               \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,      \
              __LINE__, #cond);                                   \
      ++failures;                                                 \
    }                                                             \
  } while (0)

#define ROWS 5

static void TestNamesAndVersion(void) {
  char header_version[32];
  snprintf(header_version, sizeof header_version, "%d.%d.%d",
           URISCAN_VERSION_MAJOR, URISCAN_VERSION_MINOR,
           URISCAN_VERSION_PATCH);
  CHECK(strcmp(uriscan_version(), URISCAN_VERSION_STRING) == 0);
  CHECK(strcmp(uriscan_version(), header_version) == 0);
  CHECK(uriscan_target_name() != NULL && uriscan_target_name()[0] != '\0');
  CHECK(strcmp(uriscan_error_name(URISCAN_ERROR_NONE), "none") == 0);
  CHECK(strcmp(uriscan_error_name(URISCAN_ERROR_BAD_PERCENT_ENCODING),
               "pct-encoded") == 0);
  CHECK(strcmp(uriscan_error_name(URISCAN_ERROR_BAD_IP_LITERAL),
               "IP-literal") == 0);
  CHECK(uriscan_error_name((uriscan_error_kind)URISCAN_ERROR_KIND_COUNT) ==
        NULL);
  CHECK(strlen(uriscan_error_message(URISCAN_ERROR_BAD_PORT)) > 0);
  CHECK(strcmp(uriscan_profile_name(URISCAN_PROFILE_CRAWLER), "crawler") ==
        0);
  {
    /* The w3lib profile by name, and Scrapy's form of a URL. */
    uriscan_profile w3lib = URISCAN_PROFILE_SYNTAX;
    char out[64];
    size_t written = 0;
    CHECK(uriscan_profile_from_name("w3lib", 5, &w3lib) == URISCAN_OK);
    CHECK(w3lib == URISCAN_PROFILE_W3LIB);
    CHECK(uriscan_normalize("HTTP://A/?b=1&a=2#f", 19, w3lib, out,
                            sizeof(out), &written) == URISCAN_OK);
    CHECK(written == 17 && strcmp(out, "http://a/?a=2&b=1") == 0);
  }
  CHECK(strcmp(uriscan_status_name(URISCAN_BUFFER_TOO_SMALL),
               "buffer-too-small") == 0);
  {
    uriscan_profile p = URISCAN_PROFILE_SYNTAX;
    CHECK(uriscan_profile_from_name("scheme", 6, &p) == URISCAN_OK);
    CHECK(p == URISCAN_PROFILE_SCHEME);
    /* Length-delimited: "schemeX" cut at 6 bytes is "scheme". */
    CHECK(uriscan_profile_from_name("schemeX", 6, &p) == URISCAN_OK);
    CHECK(uriscan_profile_from_name("nope", 4, &p) ==
          URISCAN_INVALID_ARGUMENT);
    CHECK(uriscan_profile_from_name("scheme", 6, NULL) ==
          URISCAN_INVALID_ARGUMENT);
  }
}

/* Five references back to back: two valid, one empty, two invalid. */
static const char kData[] =
    "http://a/b?c"   /* 0..12 */
    "//a?"           /* 12..16 */
    ""               /* 16..16 */
    "http://x/%zz"   /* 16..28: '%' at 9 */
    "http://[::1/";  /* 28..40: no ']', the authority ends at 11 */
static const uint32_t kOffsets[ROWS + 1] = {0, 12, 16, 16, 28, 40};

static void TestScanBatch(uriscan_scanner* s) {
  uint32_t uri_begin[ROWS], scheme_end[ROWS], host_begin[ROWS],
      host_end[ROWS], path_end[ROWS], query_begin[ROWS], fragment_begin[ROWS],
      uri_end[ROWS], error_offset[ROWS];
  uint16_t flags[ROWS];
  uint8_t error_kind[ROWS];
  uriscan_columns out;
  memset(&out, 0, sizeof out); /* NULL: the columns not asked for */
  out.uri_begin = uri_begin;
  out.scheme_end = scheme_end;
  out.host_begin = host_begin;
  out.host_end = host_end;
  out.path_end = path_end;
  out.query_begin = query_begin;
  out.fragment_begin = fragment_begin;
  out.uri_end = uri_end;
  out.flags = flags;
  out.error_kind = error_kind;
  out.error_offset = error_offset;

  CHECK(uriscan_scan(s, kData, kOffsets, ROWS, &out) == URISCAN_OK);
  /* http://a/b?c: scheme [0,4), host [7,8), query [11,12), no fragment. */
  CHECK(uri_begin[0] == 0 && scheme_end[0] == 4);
  CHECK(host_begin[0] == 7 && host_end[0] == 8);
  CHECK(path_end[0] == 10 && query_begin[0] == 11 && uri_end[0] == 12);
  CHECK(flags[0] & URISCAN_FLAG_HAS_SCHEME);
  CHECK(flags[0] & URISCAN_FLAG_HAS_QUERY);
  CHECK(!(flags[0] & URISCAN_FLAG_HAS_FRAGMENT));
  CHECK(((flags[0] & URISCAN_FLAG_HOST_KIND_MASK) >>
         URISCAN_FLAG_HOST_KIND_SHIFT) == URISCAN_HOST_REG_NAME);
  CHECK(error_kind[0] == URISCAN_ERROR_NONE && error_offset[0] == 0);
  /* //a?: no scheme, an empty query: defined, and empty. */
  CHECK(!(flags[1] & URISCAN_FLAG_HAS_SCHEME));
  CHECK(flags[1] & URISCAN_FLAG_HAS_AUTHORITY);
  CHECK(flags[1] & URISCAN_FLAG_HAS_QUERY);
  CHECK(query_begin[1] == 16 && uri_end[1] == 16);
  /* The empty reference is valid. */
  CHECK(error_kind[2] == URISCAN_ERROR_NONE);
  CHECK(uri_begin[2] == 16 && uri_end[2] == 16);
  /* The invalid rows: kind, offset from uri_begin, boundaries collapsed. */
  CHECK(error_kind[3] == URISCAN_ERROR_BAD_PERCENT_ENCODING);
  CHECK(error_offset[3] == 9);
  CHECK(flags[3] == 0 && scheme_end[3] == 16 && uri_end[3] == 28);
  CHECK(error_kind[4] == URISCAN_ERROR_BAD_IP_LITERAL);
  CHECK(error_offset[4] == 11);

  /* Only the error columns. */
  {
    uriscan_columns errors_only;
    memset(&errors_only, 0, sizeof errors_only);
    memset(error_kind, 0xFF, sizeof error_kind);
    errors_only.error_kind = error_kind;
    CHECK(uriscan_scan(s, kData, kOffsets, ROWS, &errors_only) ==
          URISCAN_OK);
    CHECK(error_kind[0] == 0 && error_kind[3] == 2 && error_kind[4] == 6);
  }

  /* Argument checks: nothing is written. */
  {
    const uint32_t decreasing[3] = {0, 5, 4};
    const uint32_t zeros[3] = {0, 0, 0};
    error_kind[0] = 99;
    CHECK(uriscan_scan(s, kData, decreasing, 2, &out) ==
          URISCAN_INVALID_ARGUMENT);
    CHECK(error_kind[0] == 99);
    CHECK(uriscan_scan(NULL, kData, kOffsets, ROWS, &out) ==
          URISCAN_INVALID_ARGUMENT);
    CHECK(uriscan_scan(s, kData, NULL, ROWS, &out) ==
          URISCAN_INVALID_ARGUMENT);
    CHECK(uriscan_scan(s, kData, kOffsets, ROWS, NULL) ==
          URISCAN_INVALID_ARGUMENT);
    CHECK(uriscan_scan(s, NULL, kOffsets, ROWS, &out) ==
          URISCAN_INVALID_ARGUMENT);
    /* No data is fine when every row is empty, and so are zero rows. */
    CHECK(uriscan_scan(s, NULL, zeros, 2, &out) == URISCAN_OK);
    CHECK(error_kind[0] == 0 && uri_end[1] == 0);
    CHECK(uriscan_scan(s, NULL, NULL, 0, &out) == URISCAN_OK);
  }
}

static void TestScanLines(uriscan_scanner* s) {
  static const char kText[] = "http://a/\r\nmailto:x@y\nhttp://h:8o/\nlast";
  const size_t length = sizeof kText - 1;
  uint32_t uri_begin[4], uri_end[4], scheme_end[4], error_offset[4];
  uint8_t error_kind[4];
  uriscan_columns out;
  size_t rows = 0;
  memset(&out, 0, sizeof out);
  out.uri_begin = uri_begin;
  out.uri_end = uri_end;
  out.scheme_end = scheme_end;
  out.error_kind = error_kind;
  out.error_offset = error_offset;

  CHECK(uriscan_count_lines(kText, length) == 4);
  /* Too small: the row count, and nothing written. */
  error_kind[0] = 99;
  CHECK(uriscan_scan_lines(s, kText, length, &out, 3, &rows) ==
        URISCAN_BUFFER_TOO_SMALL);
  CHECK(rows == 4 && error_kind[0] == 99);
  CHECK(uriscan_scan_lines(s, kText, length, &out, 4, &rows) == URISCAN_OK);
  CHECK(rows == 4);
  /* The "\r\n" is not part of row 0; offsets point into kText. */
  CHECK(uri_begin[0] == 0 && uri_end[0] == 9 && error_kind[0] == 0);
  CHECK(uri_begin[1] == 11 && scheme_end[1] == 17 && uri_end[1] == 21);
  CHECK(error_kind[2] == URISCAN_ERROR_BAD_PORT && error_offset[2] == 10);
  CHECK(uri_begin[3] == 35 && uri_end[3] == 39 && error_kind[3] == 0);
  /* Empty text: zero rows. */
  CHECK(uriscan_scan_lines(s, NULL, 0, &out, 0, &rows) == URISCAN_OK);
  CHECK(rows == 0);
  CHECK(uriscan_scan_lines(s, kText, length, &out, 4, NULL) ==
        URISCAN_INVALID_ARGUMENT);
}

static void TestCheck(void) {
  uriscan_error_kind kind = URISCAN_ERROR_TOO_LONG;
  uint32_t offset = 99;
  CHECK(uriscan_check("http://[::1]:80/", 16, &kind, &offset) == URISCAN_OK);
  CHECK(kind == URISCAN_ERROR_NONE && offset == 0);
  CHECK(uriscan_check("a_b:c", 5, &kind, &offset) == URISCAN_INVALID_URI);
  CHECK(kind == URISCAN_ERROR_BAD_SCHEME && offset == 1);
  /* Any byte, NUL included: the length decides. */
  CHECK(uriscan_check("http://a/\0b", 11, &kind, &offset) ==
        URISCAN_INVALID_URI);
  CHECK(kind == URISCAN_ERROR_DISALLOWED_BYTE && offset == 9);
  CHECK(uriscan_check(NULL, 0, NULL, NULL) == URISCAN_OK);
}

static void TestNormalize(void) {
  static const char kUri[] = "HTTP://Example.COM:80/a/./b/../%7e%41?q#f";
  static const char kWant[] = "http://example.com/a/~A?q#f";
  char buf[64];
  size_t n = 0;
  /* The size query. */
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, NULL,
                          0, &n) == URISCAN_BUFFER_TOO_SMALL);
  CHECK(n == sizeof kWant - 1);
  /* Exactly that size: the bytes, no NUL. */
  memset(buf, 'Z', sizeof buf);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, buf,
                          n, &n) == URISCAN_OK);
  CHECK(memcmp(buf, kWant, n) == 0 && buf[n] == 'Z');
  /* Room to spare: a NUL after them. */
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, buf,
                          sizeof buf, &n) == URISCAN_OK);
  CHECK(strcmp(buf, kWant) == 0);
  /* One byte short: nothing written. */
  memset(buf, 'Z', sizeof buf);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, buf,
                          sizeof kWant - 2, &n) == URISCAN_BUFFER_TOO_SMALL);
  CHECK(buf[0] == 'Z');
  /* The syntax profile keeps the default port; crawler drops the fragment. */
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SYNTAX, buf,
                          sizeof buf, &n) == URISCAN_OK);
  CHECK(strcmp(buf, "http://example.com:80/a/~A?q#f") == 0);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_CRAWLER, buf,
                          sizeof buf, &n) == URISCAN_OK);
  CHECK(strcmp(buf, "http://example.com/a/~A?q") == 0);
  /* Invalid references and arguments. */
  CHECK(uriscan_normalize("http://a/%zz", 12, URISCAN_PROFILE_SCHEME, buf,
                          sizeof buf, &n) == URISCAN_INVALID_URI);
  CHECK(n == 0);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, (uriscan_profile)7, buf,
                          sizeof buf, &n) == URISCAN_INVALID_ARGUMENT);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, buf,
                          sizeof buf, NULL) == URISCAN_INVALID_ARGUMENT);
  CHECK(uriscan_normalize(kUri, sizeof kUri - 1, URISCAN_PROFILE_SCHEME, NULL,
                          8, &n) == URISCAN_INVALID_ARGUMENT);
}

static void TestFingerprints(uriscan_scanner* s) {
  uint64_t a = 0, b = 0, c = 0, bad = 7;
  uint64_t keys[ROWS];
  size_t rows = 0;
  /* RFC 3986 section 6.2.3: equivalent under the scheme profile. */
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SCHEME, "http://example.com",
                              18, &a) == URISCAN_OK);
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SCHEME,
                              "HTTP://example.com:80/", 22, &b) == URISCAN_OK);
  CHECK(a != 0 && a == b);
  /* ... but not under syntax, and never across profiles. */
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SYNTAX, "http://example.com",
                              18, &c) == URISCAN_OK);
  CHECK(c != 0 && c != a);
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SCHEME, "http://x/%zz", 12,
                              &bad) == URISCAN_INVALID_URI);
  CHECK(bad == 0);
  /* The batch agrees with the single calls; invalid rows get 0. */
  CHECK(uriscan_fingerprint_batch(s, URISCAN_PROFILE_SCHEME, kData, kOffsets,
                                  ROWS, keys) == URISCAN_OK);
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SCHEME, kData, 12, &a) ==
        URISCAN_OK);
  CHECK(keys[0] == a && keys[1] != 0 && keys[3] == 0 && keys[4] == 0);
  {
    static const char kLines[] = "http://example.com\nHTTP://example.com:80/\n";
    uint64_t line_keys[2] = {0, 0};
    CHECK(uriscan_fingerprint_lines(s, URISCAN_PROFILE_SCHEME, kLines,
                                    sizeof kLines - 1, line_keys, 1, &rows) ==
          URISCAN_BUFFER_TOO_SMALL);
    CHECK(rows == 2 && line_keys[0] == 0);
    CHECK(uriscan_fingerprint_lines(s, URISCAN_PROFILE_SCHEME, kLines,
                                    sizeof kLines - 1, line_keys, 2, &rows) ==
          URISCAN_OK);
    CHECK(rows == 2 && line_keys[0] == b && line_keys[1] == b);
  }
  CHECK(uriscan_fingerprint64(URISCAN_PROFILE_SCHEME, "a", 1, NULL) ==
        URISCAN_INVALID_ARGUMENT);
}

/* Parameters of two rows with queries, one invalid row, one without. */
static void TestQueryParams(uriscan_scanner* s) {
  static const char data[] =
      "http://h/p?q=a+b%21&&lang&x=1=2#f&g" /* 0..35 */
      "http://x/%zz?a=1"                    /* 35..51: invalid */
      "/no-query"                           /* 51..60 */
      "?k=%41";                             /* 60..66 */
  static const uint32_t offsets[5] = {0, 35, 51, 60, 66};
  uint32_t row[8], name_begin[8], name_end[8], value_begin[8], value_end[8];
  uriscan_params out = {row, name_begin, name_end, value_begin, value_end};
  size_t n = 99;
  CHECK(uriscan_query_params(s, data, offsets, 4, &out, 0, &n) ==
        URISCAN_BUFFER_TOO_SMALL);
  CHECK(n == 4);
  CHECK(uriscan_query_params(s, data, offsets, 4, &out, 8, &n) == URISCAN_OK);
  CHECK(n == 4);
  CHECK(row[0] == 0 && row[1] == 0 && row[2] == 0 && row[3] == 3);
  /* "q" = "a+b%21", "lang" with an empty value at its end, "x" = "1=2". */
  CHECK(name_begin[0] == 11 && name_end[0] == 12);
  CHECK(value_begin[0] == 13 && value_end[0] == 19);
  CHECK(name_begin[1] == 21 && name_end[1] == 25);
  CHECK(value_begin[1] == 25 && value_end[1] == 25);
  CHECK(name_begin[2] == 26 && value_begin[2] == 28 && value_end[2] == 31);
  CHECK(memcmp(data + name_begin[3], "k", 1) == 0);
  {
    /* The names and values form-decoded in one call each. */
    char text[64];
    uint32_t at[5];
    CHECK(uriscan_decode_spans(data, value_begin, value_end, 4,
                               URISCAN_DECODE_FORM, text, sizeof text,
                               at) == URISCAN_OK);
    CHECK(at[1] == 4 && memcmp(text, "a b!", 4) == 0);
    CHECK(at[2] == 4 && at[3] == 7 && memcmp(text + 4, "1=2", 3) == 0);
    CHECK(at[4] == 8 && text[7] == 'A');
    CHECK(uriscan_decode_spans(data, value_begin, value_end, 4,
                               URISCAN_DECODE_FORM, text, 3, at) ==
          URISCAN_BUFFER_TOO_SMALL);
    CHECK(at[4] == 6 + 0 + 3 + 3); /* the spans' total length */
    CHECK(uriscan_decode_spans(data, value_end, value_begin, 4,
                               URISCAN_DECODE_FORM, text, sizeof text,
                               at) == URISCAN_INVALID_ARGUMENT);
  }
  CHECK(uriscan_query_params(s, data, offsets, 4, NULL, 8, &n) ==
        URISCAN_INVALID_ARGUMENT);
  CHECK(uriscan_query_params(s, data, offsets, 4, &out, 8, NULL) ==
        URISCAN_INVALID_ARGUMENT);
}

static void TestDecode(void) {
  char out[16];
  size_t n = 0;
  CHECK(uriscan_decode("a+b%41%2", 8, URISCAN_DECODE_PERCENT, out, sizeof out,
                       &n) == URISCAN_OK);
  CHECK(n == 6 && strcmp(out, "a+bA%2") == 0);
  CHECK(uriscan_decode("a+b%41%2", 8, URISCAN_DECODE_FORM, out, sizeof out,
                       &n) == URISCAN_OK);
  CHECK(n == 6 && strcmp(out, "a bA%2") == 0);
  /* The size query, then an exact fit (no NUL). */
  CHECK(uriscan_decode("%41%42", 6, URISCAN_DECODE_FORM, NULL, 0, &n) ==
        URISCAN_BUFFER_TOO_SMALL);
  CHECK(n == 2);
  CHECK(uriscan_decode("%41%42", 6, URISCAN_DECODE_FORM, out, 2, &n) ==
        URISCAN_OK);
  CHECK(n == 2 && memcmp(out, "AB", 2) == 0);
  CHECK(uriscan_decode("x", 1, (uriscan_decoding)2, out, sizeof out, &n) ==
        URISCAN_INVALID_ARGUMENT);
  CHECK(uriscan_decode(NULL, 0, URISCAN_DECODE_FORM, out, sizeof out, &n) ==
        URISCAN_OK);
  CHECK(n == 0 && out[0] == '\0');
}

/* A combined log read through the reader: its request targets with their
   lines, a problem line that gives none, and a file that is missing. */
static void TestLogReader(void) {
  char path[] = "/tmp/uriscan_c_api_log_XXXXXX";
  int fd = mkstemp(path);
  FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  fputs("1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET /a?b=c HTTP/1.0\" "
        "200 5 \"-\" \"x\"\n"
        "not a log line\n"
        "5.6.7.8 - - [10/Oct/2000:13:55:37 -0700] \"GET /d HTTP/1.1\" "
        "404 - \"http://r/\" \"y\"\n",
        f);
  fclose(f);
  const char* paths[2] = {path, "/nonexistent/uriscan.log"};
  char error[256] = "";
  CHECK(uriscan_log_reader_new(paths, 1, "xml", NULL, NULL, 0, error,
                               sizeof error) == NULL);
  CHECK(strstr(error, "format") != NULL);
  uriscan_log_reader* r = uriscan_log_reader_new(
      paths, 2, "combined", NULL, "http://h.example/", 0, error, sizeof error);
  CHECK(r != NULL);
  if (!r) return;
  const char* want[2] = {"http://h.example/a?b=c", "http://h.example/d"};
  const uint64_t want_line[2] = {1, 3};
  size_t seen = 0;
  uriscan_status st;
  for (;;) {
    const uriscan_log_ref* refs = NULL;
    size_t count = 0;
    st = uriscan_log_reader_next(r, &refs, &count, error, sizeof error);
    if (st != URISCAN_OK || refs == NULL) break;
    for (size_t i = 0; i < count && seen < 2; ++i, ++seen) {
      CHECK(refs[i].file == 0);
      CHECK(refs[i].line == want_line[seen]);
      CHECK(refs[i].uri_length == strlen(want[seen]) &&
            memcmp(refs[i].uri, want[seen], refs[i].uri_length) == 0);
    }
  }
  CHECK(seen == 2);
  CHECK(st == URISCAN_READ_ERROR);
  CHECK(strstr(error, "/nonexistent/uriscan.log") != NULL);
  CHECK(strcmp(uriscan_status_name(URISCAN_READ_ERROR), "read-error") == 0);
  CHECK(uriscan_log_reader_next(NULL, NULL, NULL, NULL, 0) ==
        URISCAN_INVALID_ARGUMENT);
  uriscan_log_reader_free(r);
  remove(path);
}

/* A seen-state from C: new rows once, across a commit and a reopening; the
   lock; an output committed with the keys; keys the caller makes. */
static void TestSeenState(void) {
  char dir[] = "/tmp/uriscan_c_state_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char state[64], output[80], error[256] = "";
  snprintf(state, sizeof state, "%s/s", dir);
  snprintf(output, sizeof output, "%s/new.txt", dir);
  uriscan_seen_state_options o;
  memset(&o, 0, sizeof o);
  o.profile = "scheme";
  uriscan_seen_state* st = uriscan_seen_state_open(state, &o, error,
                                                   sizeof error);
  CHECK(st != NULL);
  if (!st) return;
  const char rows[] = "http://a/xHTTP://A/xhttp://b/bad{";
  const uint32_t offsets[5] = {0, 10, 20, 29, 33};
  uint8_t got[4] = {9, 9, 9, 9};
  CHECK(uriscan_seen_state_add(st, rows, offsets, 4, got, error,
                               sizeof error) == URISCAN_OK);
  CHECK(got[0] == 1 && got[1] == 0 && got[2] == 1 && got[3] == 0);
  uint64_t written = 0;
  CHECK(uriscan_seen_state_commit(st, output, &written, error,
                                  sizeof error) == URISCAN_OK);
  CHECK(written == 2);
  FILE* f = fopen(output, "r");
  char text[64] = "";
  CHECK(f != NULL && fread(text, 1, sizeof text - 1, f) == 21);
  if (f) fclose(f);
  CHECK(strcmp(text, "http://a/x\nhttp://b/\n") == 0);
  /* Held: a second opening is refused with the command's message. */
  CHECK(uriscan_seen_state_open(state, NULL, error, sizeof error) == NULL);
  CHECK(strstr(error, "in use") != NULL);
  uriscan_seen_state_stats stats;
  CHECK(uriscan_seen_state_stats_get(st, &stats) == URISCAN_OK);
  CHECK(stats.keys == 2 && stats.pending == 0 && stats.invalid == 1);
  uriscan_seen_state_free(st);
  st = uriscan_seen_state_open(state, NULL, error, sizeof error);
  CHECK(st != NULL);
  if (!st) return;
  CHECK(uriscan_seen_state_contains(st, rows, offsets, 4, got, error,
                                    sizeof error) == URISCAN_OK);
  CHECK(got[0] == 1 && got[1] == 1 && got[2] == 1 && got[3] == 0);
  const uint64_t key = 42;
  CHECK(uriscan_seen_state_add_keys(st, &key, 1, got, error, sizeof error) ==
        URISCAN_OK);
  CHECK(uriscan_seen_state_commit(st, output, NULL, error, sizeof error) ==
        URISCAN_STATE_ERROR); /* committed: never written again */
  CHECK(strstr(error, "was committed to") != NULL);
  CHECK(strcmp(uriscan_status_name(URISCAN_STATE_ERROR), "state-error") == 0);
  uriscan_seen_state_free(st);
  o.profile = NULL;
  o.keys_of = "c-test";
  snprintf(state, sizeof state, "%s/k", dir);
  st = uriscan_seen_state_open(state, &o, error, sizeof error);
  CHECK(st != NULL);
  if (!st) return;
  CHECK(uriscan_seen_state_add(st, rows, offsets, 1, got, error,
                               sizeof error) == URISCAN_STATE_ERROR);
  CHECK(uriscan_seen_state_add_keys(st, &key, 1, got, error, sizeof error) ==
            URISCAN_OK && got[0] == 1);
  CHECK(uriscan_seen_state_add_keys(NULL, &key, 1, got, NULL, 0) ==
        URISCAN_INVALID_ARGUMENT);
  CHECK(uriscan_seen_state_commit(st, NULL, NULL, error, sizeof error) ==
        URISCAN_OK);
  uriscan_seen_state_free(st);
  uriscan_seen_state_free(NULL); /* allowed */
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  CHECK(system(command) == 0);
}

int main(void) {
  uriscan_scanner* s = uriscan_scanner_new();
  CHECK(s != NULL);
  if (s == NULL) return 1;
  TestNamesAndVersion();
  TestScanBatch(s);
  TestScanLines(s);
  TestCheck();
  TestNormalize();
  TestFingerprints(s);
  TestQueryParams(s);
  TestDecode();
  TestLogReader();
  TestSeenState();
  uriscan_scanner_free(s);
  uriscan_scanner_free(NULL); /* allowed */
  if (failures == 0) {
    printf("uriscan C API %s (%s): all checks passed\n", uriscan_version(),
           uriscan_target_name());
  }
  return failures == 0 ? 0 : 1;
}
