/* The "null" filter (pass every input on) and "concat" (gather values from
 * the whole wave into one array, with the back-end rank of each element).
 *
 * concat accepts three input shapes with the same element type X:
 *   "%X"          one value from the packet's source rank,
 *   "%aX"         values all from the packet's source rank,
 *   "%aX %aud"    a result of concat below: values and their ranks,
 * and always produces "%aX %aud".  A communication process may see raw
 * back-end packets from some children and concatenated ones from others in
 * the same wave, so shapes may be mixed; element types may not.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/wire.h"
#include "filter/builtin.h"

int
flt_builtin_null(grove_filter_call *call)
{
	for (size_t i = 0; i < call->n_in; i++) {
		if (!call->in[i])
			return GROVE_EINVAL;
		int rc = grove_filter_emit(call, grove_packet_ref(call->in[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One input of a concat wave, classified. */
typedef struct cat_in {
	grove_item vals;       /* scalar or array of X */
	const void *ranks;     /* uint32 ranks of vals, or NULL: all src */
	uint32_t src;
} cat_in;

#define CAT_SMALL 64

/* Elements in one concatenated result; far above what fits in a frame,
 * here only so the size arithmetic below cannot overflow. */
#define CAT_MAX_ELEMS ((uint64_t)WIRE_MAX_FRAME)

static int
cat_classify(const grove_packet *p, cat_in *ci)
{
	int n = grove_packet_nitems(p);
	if (n < 0)
		return n;
	if (n != 1 && n != 2)
		return GROVE_EFORMAT;
	int rc = grove_packet_item(p, 0, &ci->vals);
	if (rc < 0)
		return rc;
	ci->ranks = NULL;
	ci->src = grove_packet_src(p);
	if (n == 2) {
		grove_item r;
		rc = grove_packet_item(p, 1, &r);
		if (rc < 0)
			return rc;
		if (!ci->vals.is_array || !r.is_array ||
		    r.type != GROVE_T_UINT32 || r.count != ci->vals.count)
			return GROVE_EFORMAT;
		ci->ranks = r.data;
	}
	return 0;
}

int
flt_builtin_concat(grove_filter_call *call)
{
	if (call->n_in == 0)
		return 0;
	cat_in small_in[CAT_SMALL];
	cat_in *ins = small_in;
	void *vals = NULL;
	uint32_t *ranks = NULL;
	int rc = 0;
	if (call->n_in > CAT_SMALL) {
		ins = malloc(call->n_in * sizeof *ins);
		if (!ins)
			return GROVE_ENOMEM;
	}

	uint64_t total = 0;
	for (size_t j = 0; j < call->n_in; j++) {
		if (!call->in[j]) {
			rc = GROVE_EINVAL;
			goto out;
		}
		rc = cat_classify(call->in[j], &ins[j]);
		if (rc < 0)
			goto out;
		if (ins[j].vals.type != ins[0].vals.type) {
			rc = GROVE_EFORMAT;
			goto out;
		}
		total += ins[j].vals.count;
		if (total > CAT_MAX_ELEMS) {
			rc = GROVE_ERANGE;
			goto out;
		}
	}

	grove_type t = ins[0].vals.type;
	int is_str = t == GROVE_T_STRING;
	size_t esz = is_str ? sizeof(const char *) : grove_type_size(t);
	/* +1: never ask malloc for 0 bytes (an all-empty wave). */
	vals = malloc((size_t)total * esz + 1);
	ranks = malloc((size_t)total * sizeof *ranks + 1);
	if (!vals || !ranks) {
		rc = GROVE_ENOMEM;
		goto out;
	}

	size_t k = 0;
	for (size_t j = 0; j < call->n_in; j++) {
		const cat_in *ci = &ins[j];
		size_t c = (size_t)ci->vals.count;
		if (is_str && !ci->vals.is_array)
			((const char **)vals)[k] = ci->vals.data;
		else if (c)
			memcpy((char *)vals + k * esz, ci->vals.data, c * esz);
		if (ci->ranks) {
			if (c)
				memcpy(ranks + k, ci->ranks, c * sizeof *ranks);
		} else {
			for (size_t e = 0; e < c; e++)
				ranks[k + e] = ci->src;
		}
		k += c;
	}

	grove_item outs[2] = {
		{.type = t, .is_array = 1, .count = total, .data = vals},
		{.type = GROVE_T_UINT32, .is_array = 1, .count = total,
		    .data = ranks},
	};
	rc = flt_emit_items(call, outs, 2);
out:
	free(vals);
	free(ranks);
	if (ins != small_in)
		free(ins);
	return rc;
}
