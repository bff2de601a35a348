/* SPDX-License-Identifier: MIT */
/* The C face of the library for the extension's fmgr glue (uriscan_pg.c):
 * plain C types, no C++ exception and no PostgreSQL call on this side, so
 * PostgreSQL's longjmp-based errors never cross a C++ frame. Text results
 * point into per-backend scratch that the next call of the same function
 * reuses: copy them (into a palloc'd text) before calling again. */
#ifndef URISCAN_POSTGRES_BRIDGE_H_
#define URISCAN_POSTGRES_BRIDGE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The components of parse --format=tsv, in its order. */
enum upg_component {
  UPG_SCHEME, UPG_USERINFO, UPG_HOST, UPG_PORT, UPG_PATH, UPG_QUERY,
  UPG_FRAGMENT, UPG_COMPONENTS
};

/* One scan of one reference. For an invalid one every component is
 * undefined (begin < 0) and error names the rule broken. */
typedef struct upg_parts {
  int valid;
  const char *error;     /* the error kind's name; NULL when valid */
  uint32_t error_at;     /* its byte offset from the start */
  const char *host_type; /* name, ipv4, ipv6, ipvfuture; NULL without host */
  int32_t begin[UPG_COMPONENTS]; /* -1: undefined */
  int32_t length[UPG_COMPONENTS];
} upg_parts;

/* What the functions below return. */
enum upg_result {
  UPG_NULL = 0, UPG_VALUE = 1, UPG_NO_MEMORY = -1,
  UPG_INTERRUPTED = -2 /* the interrupt check said stop: nothing given */
};

void upg_parse(const char *text, size_t size, upg_parts *out);

/* A profile's number from its name (syntax, scheme, crawler, w3lib), or -1. */
int upg_profile(const char *name, size_t size);

int upg_normalize(const char *text, size_t size, int profile,
                  const char **out, size_t *out_size);
/* The 64 bits of `uriscan dedup --keys`. */
int upg_key(const char *text, size_t size, int profile, int64_t *key);
int upg_resolve(const char *base, size_t base_size, const char *ref,
                size_t ref_size, const char **out, size_t *out_size);
/* registrable != 0: the registrable domain; else the public suffix. */
int upg_public_suffix(const char *text, size_t size, int registrable,
                      const char **out, size_t *out_size);
int upg_surt(const char *text, size_t size, const char **out,
             size_t *out_size);
/* The risk bits (uriscan/risk.h); UPG_NULL for an invalid reference. */
int upg_risks(const char *text, size_t size, uint32_t *bits);
/* The name of risk bit `bit`, NULL past the last. */
const char *upg_risk_name(int bit);

/* Query parameters, decoded (see query_params.h). upg_params gives them
 * all in `bytes`: parameter k's name ends at ends[2k] and its value at
 * ends[2k + 1], each starting where the one before ends (0 first). */
int upg_param(const char *text, size_t size, const char *name,
              size_t name_size, const char **out, size_t *out_size);
int upg_params(const char *text, size_t size, size_t *count,
               const char **bytes, const uint32_t **ends);

/* The derived columns of `parse --columns` that a reference alone gives
 * (docs/cli.md): UPG_NULL where the command writes \N. */
enum upg_column {
  UPG_AUTHORITY, UPG_HOST_NOWWW, UPG_SUBDOMAIN, UPG_EXTENSION,
  UPG_PATH_DECODED, UPG_QUERY_DECODED, UPG_FRAGMENT_DECODED, UPG_SURT_CRAWLER
};
int upg_column(const char *text, size_t size, int column, const char **out,
               size_t *out_size);
/* path_segments and param_names (list != 0): item k of `count` ends at
 * ends[k] of `bytes`, starting where the one before ends (0 first). */
enum upg_list { UPG_PATH_SEGMENTS, UPG_PARAM_NAMES };
int upg_list(const char *text, size_t size, int list, size_t *count,
             const char **bytes, const uint32_t **ends);
/* uri_param_raw: the value as written. */
int upg_param_raw(const char *text, size_t size, const char *name,
                  size_t name_size, const char **out, size_t *out_size);

/* `pending` (the glue's look at PostgreSQL's InterruptPending) is asked
 * every 65536 parameters by the calls that loop over them: when it says
 * yes they stop and return UPG_INTERRUPTED, and the glue lets PostgreSQL
 * handle the interrupt (no longjmp through C++ frames). */
void upg_set_interrupt_check(int (*pending)(void));
/* Frees the scratch a large input made grow (past 1 MiB), once the glue
 * has copied the answer out: an idle backend keeps little. */
void upg_release(void);
/* After a transaction that called a function on an input past 1 MiB, once
 * the server has freed the query's memory: returns the heap's free pages to
 * the system (malloc_trim). */
void upg_trim(void);

#ifdef __cplusplus
}
#endif

#endif /* URISCAN_POSTGRES_BRIDGE_H_ */
