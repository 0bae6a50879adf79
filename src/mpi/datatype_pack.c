/* Grove MPI: packing and unpacking datatypes, and counting what a byte
 * stream of them holds.
 *
 * The packed form of count items is the data of their blocks in typemap
 * order, item after item, with no padding.  Transfers move it in chunks:
 * pack/unpack take the offset into the packed stream (skip) and a length,
 * find the block holding that offset by bisection over the blocks'
 * packed offsets, and copy from there.
 */
#include "mpi/datatype.h"

#include <string.h>

int
mpi_dt_check(MPI_Datatype dt, const char **why)
{
	if (!dt)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
	if (dt->refs <= 0)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype was freed");
	if (!dt->predefined && !dt->committed)
		return mpi_dt_fail(why, MPI_ERR_TYPE,
		                   "datatype %s%sis not committed (MPI_Type_commit)",
		                   dt->name, dt->name[0] ? " " : "");
	return MPI_SUCCESS;
}

bool
mpi_dt_is_contig(MPI_Datatype dt, size_t count)
{
	if (!count || !dt->size)
		return true;
	return dt->nblocks == 1 &&
	       (count == 1 || (MPI_Aint)dt->blocks[0].len == dt->extent);
}

/* Block b holding packed offset off (< size) of one item, and how far
 * into it off lies. */
static size_t
find_block(MPI_Datatype dt, size_t off, size_t *inner)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	if (!x) {
		size_t b = 0;
		while (off >= dt->blocks[b].len) {
			off -= dt->blocks[b].len;
			b++;
		}
		*inner = off;
		return b;
	}
	/* Last b with offs[b] <= off. */
	size_t lo = 0, hi = dt->nblocks;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->offs[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*inner = off - x->offs[lo];
	return lo;
}

static size_t
copy(MPI_Datatype dt, char *user, size_t count, char *packed, size_t skip,
     size_t max, bool pack)
{
	size_t size = dt->size, total;
	if (!size || !count || !max)
		return 0;
	if (__builtin_mul_overflow(size, count, &total))
		total = SIZE_MAX;
	if (skip >= total)
		return 0;
	size_t n = total - skip < max ? total - skip : max;
	if (mpi_dt_is_contig(dt, count)) {
		char *run = user + dt->blocks[0].disp + skip;
		if (pack)
			memcpy(packed, run, n);
		else
			memcpy(run, packed, n);
		return n;
	}
	size_t item = skip / size, inner;
	size_t b = find_block(dt, skip % size, &inner);
	char *base = user + (MPI_Aint)item * dt->extent;
	size_t done = 0;
	while (done < n) {
		const struct mpi_dt_block *blk = &dt->blocks[b];
		size_t c = blk->len - inner;
		if (c > n - done)
			c = n - done;
		if (pack)
			memcpy(packed + done, base + blk->disp + inner, c);
		else
			memcpy(base + blk->disp + inner, packed + done, c);
		done += c;
		inner += c;
		if (inner == blk->len) {
			inner = 0;
			if (++b == dt->nblocks) {
				b = 0;
				base += dt->extent;
			}
		}
	}
	return n;
}

size_t
mpi_dt_pack(MPI_Datatype dt, const void *buf, size_t count, void *out,
            size_t skip, size_t max)
{
	return copy(dt, (char *)buf, count, out, skip, max, true);
}

size_t
mpi_dt_unpack(MPI_Datatype dt, void *buf, size_t count, const void *in,
              size_t skip, size_t len)
{
	return copy(dt, buf, count, (char *)in, skip, len, false);
}

MPI_Count
mpi_dt_count(MPI_Datatype dt, MPI_Count bytes)
{
	if (bytes < 0)
		return MPI_UNDEFINED;
	/* Nothing of a zero-size type was received, whatever the count. */
	if (!dt->size)
		return 0;
	if (bytes % (MPI_Count)dt->size)
		return MPI_UNDEFINED;
	return bytes / (MPI_Count)dt->size;
}

/* Elements in the first r bytes of one item (r < size), or -1 when r
 * ends inside an element. */
static MPI_Count
elements_in_item(MPI_Datatype dt, MPI_Count r)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	if (!x) {
		if (!r)
			return 0;
		size_t first = mpi_dt_pair_first(dt->basic);
		return first && (size_t)r == first ? 1 : -1;
	}
	MPI_Count elems = 0;
	for (size_t i = 0; i < x->nruns && r > 0; i++) {
		MPI_Datatype t = x->runs[i].type;
		MPI_Count tsize = (MPI_Count)t->size;
		MPI_Count run = (MPI_Count)x->runs[i].n * tsize;
		if (r >= run) {
			elems += (MPI_Count)x->runs[i].n * mpi_dt_nelems(t);
			r -= run;
			continue;
		}
		elems += r / tsize * mpi_dt_nelems(t);
		MPI_Count part = elements_in_item(t, r % tsize);
		if (part < 0)
			return -1;
		return elems + part;
	}
	return r ? -1 : elems;
}

MPI_Count
mpi_dt_elements(MPI_Datatype dt, MPI_Count bytes)
{
	if (bytes < 0)
		return MPI_UNDEFINED;
	if (!dt->size)
		return 0;
	MPI_Count size = (MPI_Count)dt->size;
	MPI_Count part = elements_in_item(dt, bytes % size);
	if (part < 0)
		return MPI_UNDEFINED;
	return bytes / size * mpi_dt_nelems(dt) + part;
}

/* Bytes of the first k elements of one item (k < nelems). */
static MPI_Count
bytes_in_item(MPI_Datatype dt, MPI_Count k)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	if (!x) {
		if (!k)
			return 0;
		size_t first = mpi_dt_pair_first(dt->basic);
		return first && k == 1 ? (MPI_Count)first : -1;
	}
	MPI_Count bytes = 0;
	for (size_t i = 0; i < x->nruns && k > 0; i++) {
		MPI_Datatype t = x->runs[i].type;
		MPI_Count te = mpi_dt_nelems(t);
		MPI_Count run = (MPI_Count)x->runs[i].n * te;
		if (k >= run) {
			bytes += (MPI_Count)x->runs[i].n * (MPI_Count)t->size;
			k -= run;
			continue;
		}
		bytes += k / te * (MPI_Count)t->size;
		MPI_Count part = bytes_in_item(t, k % te);
		if (part < 0)
			return -1;
		return bytes + part;
	}
	return k ? -1 : bytes;
}

MPI_Count
mpi_dt_elements_bytes(MPI_Datatype dt, MPI_Count elements)
{
	if (elements < 0)
		return -1;
	MPI_Count per = mpi_dt_nelems(dt);
	if (!per)
		return elements ? -1 : 0;
	MPI_Count part = bytes_in_item(dt, elements % per);
	if (part < 0)
		return -1;
	return elements / per * (MPI_Count)dt->size + part;
}
