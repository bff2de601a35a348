/* SPDX-License-Identifier: MIT */
/* The SQL functions of the extension uriscan (fmgr glue, in C): read the
 * arguments, call bridge.h, turn its answers into datums. NULL in gives
 * NULL out (the functions are STRICT); an invalid reference gives NULL,
 * never an error. Only a bad profile name or an exhausted memory raises. */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "postgres/bridge.h"

PG_MODULE_MAGIC;

/* Text from bytes the library gave. Components of a valid reference are
 * ASCII, and decoded parameters are UTF-8 with no NUL ("%00" and escapes of
 * no UTF-8 character stay as written); but the text of an invalid
 * reference, given back by uri_surt, may hold any byte: one the database
 * encoding cannot hold (NUL, a broken UTF-8 sequence) becomes U+FFFD in a
 * UTF8 database and '?' in others, rather than an error. */
static text *
make_text(const char *bytes, size_t size)
{
	size_t		i;
	int			encoding;
	StringInfoData buf;

	for (i = 0; i < size; i++)
		if (bytes[i] == '\0' || (unsigned char) bytes[i] >= 0x80)
			break;
	if (i == size)
		return cstring_to_text_with_len(bytes, (int) size);
	encoding = GetDatabaseEncoding();
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, bytes, (int) i);
	while (i < size)
	{
		int			len = pg_encoding_verifymbchar(encoding, bytes + i,
												   (int) (size - i));

		if (len > 0 && bytes[i] != '\0')
		{
			appendBinaryStringInfo(&buf, bytes + i, len);
			i += len;
		}
		else
		{
			if (encoding == PG_UTF8)
				appendBinaryStringInfo(&buf, "\xef\xbf\xbd", 3);
			else
				appendStringInfoChar(&buf, '?');
			i++;
		}
	}
	return cstring_to_text_with_len(buf.data, buf.len);
}

static void
no_memory(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/* The bridge's interrupt check: a cancel or statement_timeout pending. */
static int
interrupt_pending(void)
{
	return InterruptPending ? 1 : 0;
}

/* A bridge result that is no answer: an error, or the interrupt the
 * bridge stopped for, handled here (ereport longjmps from C only). */
static void
check_bridge(int result)
{
	if (result == UPG_NO_MEMORY)
		no_memory();
	if (result == UPG_INTERRUPTED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling statement due to an interrupt")));
	}
}

/* At the end of each transaction: the query's executor memory is freed by
 * then (what is freed later waits for the next large call's trim). */
static void
trim_at_end(XactEvent event, void *arg)
{
	(void) arg;
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
		upg_trim();
}

void		_PG_init(void);
void
_PG_init(void)
{
	upg_set_interrupt_check(interrupt_pending);
	RegisterXactCallback(trim_at_end, NULL);
}

/* A bridge answer as a text datum (or NULL); the bridge's scratch is
 * trimmed once the answer is copied. */
static Datum
bridge_text(FunctionCallInfo fcinfo, int result, const char *bytes,
			size_t size)
{
	text	   *t;

	check_bridge(result);
	if (result == UPG_NULL)
	{
		upg_release();
		PG_RETURN_NULL();
	}
	t = make_text(bytes, size);
	upg_release();
	PG_RETURN_TEXT_P(t);
}

#define RETURN_BRIDGE_TEXT(result, bytes, size) \
	return bridge_text(fcinfo, (result), (bytes), (size))

static int
profile_arg(FunctionCallInfo fcinfo, int arg)
{
	text	   *name = PG_GETARG_TEXT_PP(arg);
	int			profile = upg_profile(VARDATA_ANY(name),
									  VARSIZE_ANY_EXHDR(name));

	if (profile < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown uriscan profile \"%s\"",
						text_to_cstring(name)),
				 errhint("The profiles are syntax, scheme, crawler and w3lib.")));
	return profile;
}

/* One component of the first argument, or NULL. */
static Datum
component(FunctionCallInfo fcinfo, enum upg_component c)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	const char *data = VARDATA_ANY(uri);
	upg_parts	parts;

	upg_parse(data, VARSIZE_ANY_EXHDR(uri), &parts);
	if (parts.begin[c] < 0)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(data + parts.begin[c],
											  parts.length[c]));
}

#define COMPONENT_FUNCTION(sql_name, c) \
	PG_FUNCTION_INFO_V1(sql_name); \
	Datum sql_name(PG_FUNCTION_ARGS) { return component(fcinfo, c); }

COMPONENT_FUNCTION(uri_scheme, UPG_SCHEME)
COMPONENT_FUNCTION(uri_userinfo, UPG_USERINFO)
COMPONENT_FUNCTION(uri_host, UPG_HOST)
COMPONENT_FUNCTION(uri_port, UPG_PORT)
COMPONENT_FUNCTION(uri_path, UPG_PATH)
COMPONENT_FUNCTION(uri_query, UPG_QUERY)
COMPONENT_FUNCTION(uri_fragment, UPG_FRAGMENT)

PG_FUNCTION_INFO_V1(uri_valid);
Datum
uri_valid(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	upg_parts	parts;

	upg_parse(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &parts);
	PG_RETURN_BOOL(parts.valid != 0);
}

PG_FUNCTION_INFO_V1(uri_error);
Datum
uri_error(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	upg_parts	parts;

	upg_parse(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &parts);
	if (parts.valid)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(parts.error));
}

PG_FUNCTION_INFO_V1(uri_host_type);
Datum
uri_host_type(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	upg_parts	parts;

	upg_parse(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &parts);
	if (!parts.host_type)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(parts.host_type));
}

/* uri_parse(text) -> uriscan_parts: every column of one scan. */
PG_FUNCTION_INFO_V1(uri_parse);
Datum
uri_parse(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	const char *data = VARDATA_ANY(uri);
	TupleDesc	desc;
	upg_parts	parts;
	Datum		values[4 + UPG_COMPONENTS];
	bool		nulls[4 + UPG_COMPONENTS];
	int			c;

	/* The row type, looked up once per call site. */
	desc = (TupleDesc) fcinfo->flinfo->fn_extra;
	if (desc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("uri_parse must return a composite type")));
		desc = BlessTupleDesc(CreateTupleDescCopy(desc));
		MemoryContextSwitchTo(old);
		fcinfo->flinfo->fn_extra = desc;
	}
	upg_parse(data, VARSIZE_ANY_EXHDR(uri), &parts);
	memset(nulls, 0, sizeof(nulls));
	values[0] = BoolGetDatum(parts.valid != 0);
	for (c = 0; c < UPG_COMPONENTS; c++)
	{
		if (parts.begin[c] < 0)
			nulls[1 + c] = true;
		else
			values[1 + c] = PointerGetDatum(cstring_to_text_with_len(
				data + parts.begin[c], parts.length[c]));
	}
	c = 1 + UPG_COMPONENTS;
	if (parts.host_type)
		values[c] = PointerGetDatum(cstring_to_text(parts.host_type));
	else
		nulls[c] = true;
	if (parts.valid)
		nulls[c + 1] = nulls[c + 2] = true;
	else
	{
		values[c + 1] = PointerGetDatum(cstring_to_text(parts.error));
		values[c + 2] = Int32GetDatum((int32) parts.error_at);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

PG_FUNCTION_INFO_V1(uri_normalize);
Datum
uri_normalize(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	int			profile = profile_arg(fcinfo, 1);
	const char *out;
	size_t		size;
	int			r = upg_normalize(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri),
								  profile, &out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

PG_FUNCTION_INFO_V1(uri_key);
Datum
uri_key(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	int			profile = profile_arg(fcinfo, 1);
	int64_t		key;
	int			r = upg_key(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), profile,
							&key);

	upg_release();
	check_bridge(r);
	if (r == UPG_NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) key);
}

PG_FUNCTION_INFO_V1(uri_resolve);
Datum
uri_resolve(PG_FUNCTION_ARGS)
{
	text	   *base = PG_GETARG_TEXT_PP(0);
	text	   *ref = PG_GETARG_TEXT_PP(1);
	const char *out;
	size_t		size;
	int			r = upg_resolve(VARDATA_ANY(base), VARSIZE_ANY_EXHDR(base),
								VARDATA_ANY(ref), VARSIZE_ANY_EXHDR(ref),
								&out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

static Datum
public_suffix(FunctionCallInfo fcinfo, int registrable)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	const char *out;
	size_t		size;
	int			r = upg_public_suffix(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri),
									  registrable, &out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

PG_FUNCTION_INFO_V1(uri_registrable_domain);
Datum
uri_registrable_domain(PG_FUNCTION_ARGS)
{
	return public_suffix(fcinfo, 1);
}

PG_FUNCTION_INFO_V1(uri_public_suffix);
Datum
uri_public_suffix(PG_FUNCTION_ARGS)
{
	return public_suffix(fcinfo, 0);
}

PG_FUNCTION_INFO_V1(uri_surt);
Datum
uri_surt(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	const char *out;
	size_t		size;
	int			r = upg_surt(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &out,
							 &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

/* uri_risks(text) -> text[]: the names of `uriscan audit`, in bit order. */
PG_FUNCTION_INFO_V1(uri_risks);
Datum
uri_risks(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	uint32_t	bits;
	Datum		names[32];
	int			count = 0;
	int			bit;
	const char *name;

	if (upg_risks(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &bits) == UPG_NULL)
		PG_RETURN_NULL();
	for (bit = 0; (name = upg_risk_name(bit)) != NULL; bit++)
		if (bits & (UINT32_C(1) << bit))
			names[count++] = PointerGetDatum(cstring_to_text(name));
	PG_RETURN_ARRAYTYPE_P(construct_array(names, count, TEXTOID, -1, false,
										  TYPALIGN_INT));
}

PG_FUNCTION_INFO_V1(uri_param);
Datum
uri_param(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	text	   *name = PG_GETARG_TEXT_PP(1);
	const char *out;
	size_t		size;
	int			r = upg_param(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri),
							  VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
							  &out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

/* uri_params(text) -> TABLE(name text, value text), materialized. */
PG_FUNCTION_INFO_V1(uri_params);
Datum
uri_params(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	size_t		count = 0;
	size_t		k;
	const char *bytes;
	const uint32_t *ends;
	uint32_t	at = 0;
	int			r;

	InitMaterializedSRF(fcinfo, 0);
	r = upg_params(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &count, &bytes,
				   &ends);
	check_bridge(r);
	for (k = 0; r == UPG_VALUE && k < count; k++)
	{
		Datum		row[2];
		bool		nulls[2] = {false, false};
		text	   *name,
				   *value;

		CHECK_FOR_INTERRUPTS();
		name = make_text(bytes + at, ends[2 * k] - at);
		value = make_text(bytes + ends[2 * k], ends[2 * k + 1] - ends[2 * k]);
		at = ends[2 * k + 1];
		row[0] = PointerGetDatum(name);
		row[1] = PointerGetDatum(value);
		/* The tuplestore keeps its own copy (spilled past work_mem). */
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row, nulls);
		pfree(name);
		pfree(value);
	}
	upg_release();
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(uri_error_at);
Datum
uri_error_at(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	upg_parts	parts;

	upg_parse(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &parts);
	if (parts.valid)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) parts.error_at);
}

PG_FUNCTION_INFO_V1(uri_param_raw);
Datum
uri_param_raw(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	text	   *name = PG_GETARG_TEXT_PP(1);
	const char *out;
	size_t		size;
	int			r = upg_param_raw(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri),
								  VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
								  &out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

/* One derived column of parse --columns (bridge.h's upg_column). */
static Datum
column(FunctionCallInfo fcinfo, int c)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	const char *out;
	size_t		size;
	int			r = upg_column(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), c,
							   &out, &size);

	RETURN_BRIDGE_TEXT(r, out, size);
}

#define COLUMN_FUNCTION(sql_name, c) \
	PG_FUNCTION_INFO_V1(sql_name); \
	Datum sql_name(PG_FUNCTION_ARGS) { return column(fcinfo, c); }

COLUMN_FUNCTION(uri_authority, UPG_AUTHORITY)
COLUMN_FUNCTION(uri_host_nowww, UPG_HOST_NOWWW)
COLUMN_FUNCTION(uri_subdomain, UPG_SUBDOMAIN)
COLUMN_FUNCTION(uri_extension, UPG_EXTENSION)
COLUMN_FUNCTION(uri_path_decoded, UPG_PATH_DECODED)
COLUMN_FUNCTION(uri_query_decoded, UPG_QUERY_DECODED)
COLUMN_FUNCTION(uri_fragment_decoded, UPG_FRAGMENT_DECODED)
COLUMN_FUNCTION(uri_surt_crawler, UPG_SURT_CRAWLER)

/* path_segments and param_names as text[] (bridge.h's upg_list). */
static Datum
text_list(FunctionCallInfo fcinfo, int list)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	size_t		count = 0;
	size_t		k;
	const char *bytes;
	const uint32_t *ends;
	uint32_t	at = 0;
	Datum	   *items;
	ArrayType  *array;
	int			r = upg_list(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), list,
							 &count, &bytes, &ends);

	check_bridge(r);
	if (r == UPG_NULL)
	{
		upg_release();
		PG_RETURN_NULL();
	}
	items = palloc(sizeof(Datum) * (count > 0 ? count : 1));
	for (k = 0; k < count; k++)
	{
		CHECK_FOR_INTERRUPTS();
		items[k] = PointerGetDatum(make_text(bytes + at, ends[k] - at));
		at = ends[k];
	}
	array = construct_array(items, (int) count, TEXTOID, -1, false,
							TYPALIGN_INT);
	upg_release();
	PG_RETURN_ARRAYTYPE_P(array);
}

PG_FUNCTION_INFO_V1(uri_path_segments);
Datum
uri_path_segments(PG_FUNCTION_ARGS)
{
	return text_list(fcinfo, UPG_PATH_SEGMENTS);
}

PG_FUNCTION_INFO_V1(uri_param_names);
Datum
uri_param_names(PG_FUNCTION_ARGS)
{
	return text_list(fcinfo, UPG_PARAM_NAMES);
}
