/* Grove MPI: datatype constructors, reference counts, names, envelopes,
 * and the MPI_Type_* entry points over them.
 *
 * Every constructor reduces its arguments to a list of entries "n items
 * of type T at byte displacement d" in typemap order and hands it to one
 * builder, which computes size, bounds and the flattened block list (the
 * form pack/unpack walk), merging blocks that follow each other in both
 * typemap order and memory.  The constructor then records its own
 * arguments for MPI_Type_get_contents.
 */
#include "mpi/datatype.h"

#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ent {
	size_t n;
	MPI_Aint disp;
	MPI_Datatype type;
};

/* Blocks beyond this are refused rather than risking an allocation the
 * size of the address space (a pathological vector of tiny blocks). */
#define MPI_DT_MAX_BLOCKS ((size_t)1 << 28)

struct blist {
	struct mpi_dt_block *b;
	size_t n, cap;
};

static int
blist_add(struct blist *l, MPI_Aint disp, size_t len)
{
	if (!len)
		return 0;
	if (l->n) {
		struct mpi_dt_block *last = &l->b[l->n - 1];
		if (last->disp + (MPI_Aint)last->len == disp) {
			last->len += len;
			return 0;
		}
	}
	if (l->n == l->cap) {
		if (l->cap >= MPI_DT_MAX_BLOCKS)
			return -1;
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct mpi_dt_block *nb = realloc(l->b, cap * sizeof *nb);
		if (!nb)
			return -1;
		l->b = nb;
		l->cap = cap;
	}
	l->b[l->n].disp = disp;
	l->b[l->n].len = len;
	l->n++;
	return 0;
}

static void
ext_destroy(struct mpi_dt_ext *x)
{
	for (int i = 0; i < x->nd; i++)
		mpi_dt_release(x->types[i]);
	free(x->ints);
	free(x->addrs);
	free(x->types);
	free(x->runs);
	free(x->offs);
	free(x->dt.blocks);
	free(x);
}

void
mpi_dt_retain(MPI_Datatype dt)
{
	if (dt && !dt->predefined)
		dt->refs++;
}

void
mpi_dt_release(MPI_Datatype dt)
{
	if (!dt || dt->predefined)
		return;
	if (--dt->refs > 0)
		return;
	ext_destroy((struct mpi_dt_ext *)dt);
}

/* The builder.  resize, when not NULL, is {lb, extent} of
 * MPI_Type_create_resized; is_struct rounds the extent up to the
 * strictest alignment of the parts, as C pads a struct (MPI's epsilon),
 * unless a marker fixed a bound. */
static int
build(const struct ent *e, size_t ne, bool is_struct, const MPI_Aint *resize,
      int combiner, MPI_Datatype *out, const char **why)
{
	struct mpi_dt_ext *x = calloc(1, sizeof *x);
	struct blist bl = {0};
	if (!x)
		goto nomem;
	struct grove_mpi_datatype_s *dt = &x->dt;
	bool have_nat = false, have_mlb = false, have_mub = false;
	MPI_Aint nat_lo = 0, nat_hi = 0, mlb = 0, mub = 0;
	bool have_basic = false, mixed = false;
	enum mpi_basic basic = MPI_B_NONE;
	size_t size = 0, basic_count = 0, align = 1;
	MPI_Count nelems = 0;

	for (size_t i = 0; i < ne; i++) {
		MPI_Datatype t = e[i].type;
		bool marker = mpi_dt_is_marker(t);
		if (!marker) {
			/* The kind is decided by the types named, even in
			 * empty entries, so contiguous(0, MPI_INT) is still
			 * made of MPI_INT. */
			if (!have_basic) {
				basic = t->basic;
				have_basic = true;
			} else if (t->basic != basic) {
				mixed = true;
			}
			if (mpi_dt_align(t) > align)
				align = mpi_dt_align(t);
		}
		if (!e[i].n)
			continue;
		size_t bytes;
		if (__builtin_mul_overflow(e[i].n, t->size, &bytes) ||
		    __builtin_add_overflow(size, bytes, &size))
			goto toobig;
		basic_count += e[i].n * t->basic_count;
		nelems += (MPI_Count)e[i].n * mpi_dt_nelems(t);
		MPI_Aint span = (MPI_Aint)(e[i].n - 1) * t->extent;
		MPI_Aint lo = e[i].disp + t->lb + (span < 0 ? span : 0);
		MPI_Aint hi = e[i].disp + t->lb + t->extent + (span > 0 ? span : 0);
		if (mpi_dt_sticky_lb(t)) {
			mlb = have_mlb && mlb < lo ? mlb : lo;
			have_mlb = true;
		}
		if (mpi_dt_sticky_ub(t)) {
			mub = have_mub && mub > hi ? mub : hi;
			have_mub = true;
		}
		if (!marker) {
			nat_lo = have_nat && nat_lo < lo ? nat_lo : lo;
			nat_hi = have_nat && nat_hi > hi ? nat_hi : hi;
			have_nat = true;
		}
		/* Blocks: a type whose one block fills its extent repeats
		 * as one long block; anything else item by item. */
		if (t->nblocks == 1 && (MPI_Aint)t->blocks[0].len == t->extent) {
			if (blist_add(&bl, e[i].disp + t->blocks[0].disp, bytes))
				goto nomem;
		} else {
			for (size_t k = 0; k < e[i].n; k++) {
				MPI_Aint base = e[i].disp + (MPI_Aint)k * t->extent;
				for (size_t b = 0; b < t->nblocks; b++)
					if (blist_add(&bl, base + t->blocks[b].disp,
					              t->blocks[b].len))
						goto nomem;
			}
		}
		/* Element runs, merged while the type repeats. */
		if (!marker && mpi_dt_nelems(t)) {
			if (x->nruns && x->runs[x->nruns - 1].type == t) {
				x->runs[x->nruns - 1].n += e[i].n;
			} else {
				struct mpi_dt_run *nr = realloc(
					x->runs, (x->nruns + 1) * sizeof *nr);
				if (!nr)
					goto nomem;
				x->runs = nr;
				x->runs[x->nruns].n = e[i].n;
				x->runs[x->nruns].type = t;
				x->nruns++;
			}
		}
	}

	if (!have_nat)
		nat_lo = nat_hi = have_mlb ? mlb : (have_mub ? mub : 0);
	MPI_Aint lb = have_mlb ? mlb : nat_lo;
	MPI_Aint ub = have_mub ? mub : nat_hi;
	if (is_struct && !have_mlb && !have_mub && ub > lb) {
		MPI_Aint rem = (ub - lb) % (MPI_Aint)align;
		if (rem)
			ub += (MPI_Aint)align - rem;
	}
	if (resize) {
		lb = resize[0];
		ub = resize[0] + resize[1];
		x->sticky_lb = x->sticky_ub = true;
	} else {
		x->sticky_lb = have_mlb;
		x->sticky_ub = have_mub;
	}

	dt->refs = 1;
	dt->predefined = false;
	dt->committed = false;
	dt->basic = have_basic && !mixed ? basic : MPI_B_NONE;
	dt->basic_count = dt->basic != MPI_B_NONE ? basic_count : 0;
	dt->size = size;
	dt->lb = lb;
	dt->extent = ub - lb;
	dt->nblocks = bl.n;
	dt->blocks = bl.b;
	dt->combiner = combiner;
	dt->name[0] = '\0';
	if (bl.n) {
		MPI_Aint tlo = bl.b[0].disp, thi = bl.b[0].disp + (MPI_Aint)bl.b[0].len;
		for (size_t b = 1; b < bl.n; b++) {
			if (bl.b[b].disp < tlo)
				tlo = bl.b[b].disp;
			if (bl.b[b].disp + (MPI_Aint)bl.b[b].len > thi)
				thi = bl.b[b].disp + (MPI_Aint)bl.b[b].len;
		}
		dt->true_lb = tlo;
		dt->true_extent = thi - tlo;
	} else {
		dt->true_lb = 0;
		dt->true_extent = 0;
	}
	dt->contig = (bl.n == 0 && dt->extent == 0) ||
	             (bl.n == 1 && bl.b[0].disp == 0 && lb == 0 &&
	              (MPI_Aint)size == dt->extent);
	x->offs = malloc((bl.n + 1) * sizeof *x->offs);
	if (!x->offs)
		goto nomem_built;
	x->offs[0] = 0;
	for (size_t b = 0; b < bl.n; b++)
		x->offs[b + 1] = x->offs[b] + bl.b[b].len;
	x->align = align;
	x->nelems = nelems;
	*out = dt;
	return MPI_SUCCESS;

nomem_built:
	ext_destroy(x);
	return mpi_dt_fail(why, MPI_ERR_NO_MEM, "out of memory for a datatype");
nomem:
	free(bl.b);
	if (x)
		free(x->runs);
	free(x);
	return mpi_dt_fail(why, MPI_ERR_NO_MEM,
	                   "out of memory for a datatype (or more than %zu blocks)",
	                   MPI_DT_MAX_BLOCKS);
toobig:
	free(bl.b);
	free(x->runs);
	free(x);
	return mpi_dt_fail(why, MPI_ERR_TYPE, "datatype size overflows");
}

/* Records the constructor's arguments (MPI_Type_get_contents). */
static int
set_contents(MPI_Datatype dt, int ni, const int *ints, int na,
             const MPI_Aint *addrs, int nd, const MPI_Datatype *types,
             const char **why)
{
	struct mpi_dt_ext *x = mpi_dt_ext(dt);
	x->ints = ni > 0 ? malloc((size_t)ni * sizeof *ints) : NULL;
	x->addrs = na > 0 ? malloc((size_t)na * sizeof *addrs) : NULL;
	x->types = nd > 0 ? malloc((size_t)nd * sizeof *types) : NULL;
	if ((ni > 0 && !x->ints) || (na > 0 && !x->addrs) || (nd > 0 && !x->types)) {
		mpi_dt_release(dt);
		return mpi_dt_fail(why, MPI_ERR_NO_MEM, "out of memory for a datatype");
	}
	if (ni > 0)
		memcpy(x->ints, ints, (size_t)ni * sizeof *ints);
	if (na > 0)
		memcpy(x->addrs, addrs, (size_t)na * sizeof *addrs);
	for (int i = 0; i < nd; i++) {
		x->types[i] = types[i];
		mpi_dt_retain(types[i]);
	}
	x->ni = ni;
	x->na = na;
	x->nd = nd;
	return MPI_SUCCESS;
}

/* ---- argument checks ------------------------------------------------- */

static int
check_type(MPI_Datatype t, const char *what, const char **why)
{
	if (!t)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
	if (t->refs <= 0)
		return mpi_dt_fail(why, MPI_ERR_TYPE, "%s was freed", what);
	return 0;
}

static int
check_count(int count, const char **why)
{
	if (count < 0)
		return mpi_dt_fail(why, MPI_ERR_COUNT, "count %d is negative", count);
	return 0;
}

static int
check_blocklens(int count, const int *bl, const char **why)
{
	if (count && !bl)
		return mpi_dt_fail(why, MPI_ERR_ARG, "array_of_blocklengths is NULL");
	for (int i = 0; i < count; i++)
		if (bl[i] < 0)
			return mpi_dt_fail(why, MPI_ERR_ARG,
			                   "blocklength[%d] = %d is negative", i, bl[i]);
	return 0;
}

static int
check_out(MPI_Datatype *out, const char **why)
{
	if (!out)
		return mpi_dt_fail(why, MPI_ERR_ARG, "newtype is NULL");
	return 0;
}

static struct ent *
ents_alloc(size_t n)
{
	/* Callers pass counts already checked to be non-negative ints; the
	 * bound also tells the compiler the product cannot overflow. */
	if (n > (size_t)INT32_MAX)
		return NULL;
	return malloc((n ? n : 1) * sizeof(struct ent));
}

static int
nomem(const char **why)
{
	return mpi_dt_fail(why, MPI_ERR_NO_MEM, "out of memory for a datatype");
}

/* ---- constructors ------------------------------------------------------ */

int
mpi_dt_contiguous(int count, MPI_Datatype old, MPI_Datatype *out,
                  const char **why)
{
	int rc;
	if ((rc = check_count(count, why)) || (rc = check_type(old, "oldtype", why)) ||
	    (rc = check_out(out, why)))
		return rc;
	struct ent e = {(size_t)count, 0, old};
	if ((rc = build(&e, 1, false, NULL, MPI_COMBINER_CONTIGUOUS, out, why)))
		return rc;
	return set_contents(*out, 1, &count, 0, NULL, 1, &old, why);
}

static int
hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype old,
        int combiner, MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_count(count, why)) || (rc = check_type(old, "oldtype", why)) ||
	    (rc = check_out(out, why)))
		return rc;
	if (blocklen < 0)
		return mpi_dt_fail(why, MPI_ERR_ARG, "blocklength %d is negative",
		                   blocklen);
	struct ent *e = ents_alloc(count);
	if (!e)
		return nomem(why);
	for (int i = 0; i < count; i++)
		e[i] = (struct ent){(size_t)blocklen, (MPI_Aint)i * stride, old};
	rc = build(e, count, false, NULL, combiner, out, why);
	free(e);
	return rc;
}

int
mpi_dt_vector(int count, int blocklen, int stride, MPI_Datatype old,
              MPI_Datatype *out, const char **why)
{
	int rc = check_type(old, "oldtype", why);
	if (rc)
		return rc;
	rc = hvector(count, blocklen, (MPI_Aint)stride * old->extent, old,
	             MPI_COMBINER_VECTOR, out, why);
	if (rc)
		return rc;
	int ints[3] = {count, blocklen, stride};
	return set_contents(*out, 3, ints, 0, NULL, 1, &old, why);
}

int
mpi_dt_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype old,
               MPI_Datatype *out, const char **why)
{
	int rc = hvector(count, blocklen, stride, old, MPI_COMBINER_HVECTOR, out,
	                 why);
	if (rc)
		return rc;
	int ints[2] = {count, blocklen};
	return set_contents(*out, 2, ints, 1, &stride, 1, &old, why);
}

/* The indexed family: blocklens NULL means every block is `blocklen`;
 * idisps (in extents of old) or adisps (in bytes) give the places. */
static int
indexed(int count, const int *blocklens, int blocklen, const int *idisps,
        const MPI_Aint *adisps, MPI_Datatype old, int combiner,
        MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_count(count, why)) || (rc = check_type(old, "oldtype", why)) ||
	    (rc = check_out(out, why)))
		return rc;
	if (blocklens && (rc = check_blocklens(count, blocklens, why)))
		return rc;
	if (!blocklens && blocklen < 0)
		return mpi_dt_fail(why, MPI_ERR_ARG, "blocklength %d is negative",
		                   blocklen);
	if (count && !idisps && !adisps)
		return mpi_dt_fail(why, MPI_ERR_ARG, "array_of_displacements is NULL");
	struct ent *e = ents_alloc(count);
	if (!e)
		return nomem(why);
	for (int i = 0; i < count; i++) {
		e[i].n = (size_t)(blocklens ? blocklens[i] : blocklen);
		e[i].disp = idisps ? (MPI_Aint)idisps[i] * old->extent : adisps[i];
		e[i].type = old;
	}
	rc = build(e, count, false, NULL, combiner, out, why);
	free(e);
	return rc;
}

/* ints for get_contents: count, then the given int arrays in order. */
static int
contents_ints(MPI_Datatype dt, int count, const int *a, const int *b,
              int single, bool has_single, const MPI_Aint *addrs,
              MPI_Datatype old, const char **why)
{
	int ni = 1 + (has_single ? 1 : 0) + (a ? count : 0) + (b ? count : 0);
	int *ints = malloc(ni * sizeof *ints);
	if (!ints) {
		mpi_dt_release(dt);
		return nomem(why);
	}
	int k = 0;
	ints[k++] = count;
	if (has_single)
		ints[k++] = single;
	for (int i = 0; a && i < count; i++)
		ints[k++] = a[i];
	for (int i = 0; b && i < count; i++)
		ints[k++] = b[i];
	int rc = set_contents(dt, ni, ints, addrs ? count : 0, addrs, 1, &old, why);
	free(ints);
	return rc;
}

int
mpi_dt_indexed(int count, const int *blocklens, const int *disps,
               MPI_Datatype old, MPI_Datatype *out, const char **why)
{
	if (count > 0 && !blocklens)
		return mpi_dt_fail(why, MPI_ERR_ARG, "array_of_blocklengths is NULL");
	int rc = indexed(count, blocklens, 0, disps, NULL, old,
	                 MPI_COMBINER_INDEXED, out, why);
	return rc ? rc : contents_ints(*out, count, blocklens, disps, 0, false,
	                               NULL, old, why);
}

int
mpi_dt_hindexed(int count, const int *blocklens, const MPI_Aint *disps,
                MPI_Datatype old, MPI_Datatype *out, const char **why)
{
	if (count > 0 && !blocklens)
		return mpi_dt_fail(why, MPI_ERR_ARG, "array_of_blocklengths is NULL");
	int rc = indexed(count, blocklens, 0, NULL, disps, old,
	                 MPI_COMBINER_HINDEXED, out, why);
	return rc ? rc : contents_ints(*out, count, blocklens, NULL, 0, false,
	                               disps, old, why);
}

int
mpi_dt_indexed_block(int count, int blocklen, const int *disps,
                     MPI_Datatype old, MPI_Datatype *out, const char **why)
{
	int rc = indexed(count, NULL, blocklen, disps, NULL, old,
	                 MPI_COMBINER_INDEXED_BLOCK, out, why);
	return rc ? rc : contents_ints(*out, count, disps, NULL, blocklen, true,
	                               NULL, old, why);
}

int
mpi_dt_hindexed_block(int count, int blocklen, const MPI_Aint *disps,
                      MPI_Datatype old, MPI_Datatype *out, const char **why)
{
	int rc = indexed(count, NULL, blocklen, NULL, disps, old,
	                 MPI_COMBINER_HINDEXED_BLOCK, out, why);
	return rc ? rc : contents_ints(*out, count, NULL, NULL, blocklen, true,
	                               disps, old, why);
}

int
mpi_dt_struct(int count, const int *blocklens, const MPI_Aint *disps,
              const MPI_Datatype *types, MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_count(count, why)) ||
	    (rc = check_blocklens(count, blocklens, why)) || (rc = check_out(out, why)))
		return rc;
	if (count && (!disps || !types))
		return mpi_dt_fail(why, MPI_ERR_ARG, "array_of_%s is NULL",
		                   disps ? "types" : "displacements");
	for (int i = 0; i < count; i++) {
		char what[40];
		snprintf(what, sizeof what, "array_of_types[%d]", i);
		if ((rc = check_type(types[i], what, why)))
			return rc;
	}
	struct ent *e = ents_alloc(count);
	if (!e)
		return nomem(why);
	for (int i = 0; i < count; i++)
		e[i] = (struct ent){(size_t)blocklens[i], disps[i], types[i]};
	rc = build(e, count, true, NULL, MPI_COMBINER_STRUCT, out, why);
	free(e);
	if (rc)
		return rc;
	int *ints = malloc((count + 1) * sizeof *ints);
	if (!ints) {
		mpi_dt_release(*out);
		return nomem(why);
	}
	ints[0] = count;
	for (int i = 0; i < count; i++)
		ints[i + 1] = blocklens[i];
	rc = set_contents(*out, count + 1, ints, count, disps, count, types, why);
	free(ints);
	return rc;
}

int
mpi_dt_subarray(int ndims, const int *sizes, const int *subsizes,
                const int *starts, int order, MPI_Datatype old,
                MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_type(old, "oldtype", why)) || (rc = check_out(out, why)))
		return rc;
	if (ndims <= 0)
		return mpi_dt_fail(why, MPI_ERR_ARG, "ndims %d is not positive", ndims);
	if (!sizes || !subsizes || !starts)
		return mpi_dt_fail(why, MPI_ERR_ARG, "a size or start array is NULL");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return mpi_dt_fail(why, MPI_ERR_ARG,
		                   "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
		                   order);
	for (int d = 0; d < ndims; d++) {
		if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] ||
		    starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
			return mpi_dt_fail(why, MPI_ERR_ARG,
			                   "dimension %d: subarray [%d, %d + %d) does not "
			                   "fit in size %d", d, starts[d], starts[d],
			                   subsizes[d], sizes[d]);
	}
	/* Dimension k of the walk, slowest first: C order is the given
	 * order, Fortran's the reverse. */
#define DIM(k) (order == MPI_ORDER_C ? (k) : ndims - 1 - (k))
	MPI_Aint *stride = malloc(ndims * sizeof *stride);
	int *idx = calloc(ndims, sizeof *idx);
	if (!stride || !idx) {
		free(stride);
		free(idx);
		return nomem(why);
	}
	MPI_Aint s = old->extent;
	size_t rows = 1;
	for (int k = ndims - 1; k >= 0; k--) {
		stride[k] = s;
		if (__builtin_mul_overflow(s, (MPI_Aint)sizes[DIM(k)], &s) ||
		    (k < ndims - 1 &&
		     __builtin_mul_overflow(rows, (size_t)subsizes[DIM(k)], &rows))) {
			free(stride);
			free(idx);
			return mpi_dt_fail(why, MPI_ERR_ARG, "the array's size overflows");
		}
	}
	MPI_Aint whole[2] = {0, s}; /* lb 0, extent: the whole array */
	struct ent *e = ents_alloc(rows);
	if (!e) {
		free(stride);
		free(idx);
		return nomem(why);
	}
	/* One entry per row of the fastest dimension, rows in order. */
	for (size_t r = 0; r < rows; r++) {
		MPI_Aint disp = 0;
		for (int k = 0; k < ndims; k++)
			disp += (MPI_Aint)(starts[DIM(k)] + (k < ndims - 1 ? idx[k] : 0)) *
			        stride[k];
		e[r] = (struct ent){(size_t)subsizes[DIM(ndims - 1)], disp, old};
		for (int k = ndims - 2; k >= 0; k--) {
			if (++idx[k] < subsizes[DIM(k)])
				break;
			idx[k] = 0;
		}
	}
#undef DIM
	rc = build(e, rows, false, whole, MPI_COMBINER_SUBARRAY, out, why);
	free(e);
	free(stride);
	free(idx);
	if (rc)
		return rc;
	int ni = 3 * ndims + 2;
	int *ints = malloc(ni * sizeof *ints);
	if (!ints) {
		mpi_dt_release(*out);
		return nomem(why);
	}
	ints[0] = ndims;
	for (int d = 0; d < ndims; d++) {
		ints[1 + d] = sizes[d];
		ints[1 + ndims + d] = subsizes[d];
		ints[1 + 2 * ndims + d] = starts[d];
	}
	ints[ni - 1] = order;
	rc = set_contents(*out, ni, ints, 0, NULL, 1, &old, why);
	free(ints);
	return rc;
}

int
mpi_dt_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
               MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_type(old, "oldtype", why)) || (rc = check_out(out, why)))
		return rc;
	struct ent e = {1, 0, old};
	MPI_Aint bounds[2] = {lb, extent};
	if ((rc = build(&e, 1, false, bounds, MPI_COMBINER_RESIZED, out, why)))
		return rc;
	return set_contents(*out, 0, NULL, 2, bounds, 1, &old, why);
}

int
mpi_dt_dup(MPI_Datatype old, MPI_Datatype *out, const char **why)
{
	int rc;
	if ((rc = check_type(old, "oldtype", why)) || (rc = check_out(out, why)))
		return rc;
	/* One item of old at 0 keeps old's bounds and markers as they are. */
	struct ent e = {1, 0, old};
	if ((rc = build(&e, 1, false, NULL, MPI_COMBINER_DUP, out, why)))
		return rc;
	(*out)->committed = old->committed;
	return set_contents(*out, 0, NULL, 0, NULL, 1, &old, why);
}

int
mpi_dt_commit(MPI_Datatype dt, const char **why)
{
	int rc = check_type(dt, "datatype", why);
	if (rc)
		return rc;
	dt->committed = true;
	return MPI_SUCCESS;
}

int
mpi_dt_free(MPI_Datatype *dt, const char **why)
{
	if (!dt)
		return mpi_dt_fail(why, MPI_ERR_ARG, "datatype pointer is NULL");
	int rc = check_type(*dt, "datatype", why);
	if (rc)
		return rc;
	if ((*dt)->predefined)
		return mpi_dt_fail(why, MPI_ERR_TYPE,
		                   "%s is predefined and cannot be freed", (*dt)->name);
	/* A request still using it holds a reference: it lives on until
	 * that request lets it go. */
	mpi_dt_release(*dt);
	*dt = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

void
mpi_dt_envelope(MPI_Datatype dt, int *ni, int *na, int *nd, int *combiner)
{
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	*ni = x ? x->ni : 0;
	*na = x ? x->na : 0;
	*nd = x ? x->nd : 0;
	*combiner = dt->combiner;
}

int
mpi_dt_contents(MPI_Datatype dt, int maxi, int maxa, int maxd, int *ints,
                MPI_Aint *addrs, MPI_Datatype *types, const char **why)
{
	int rc = check_type(dt, "datatype", why);
	if (rc)
		return rc;
	const struct mpi_dt_ext *x = mpi_dt_ext(dt);
	if (!x)
		return mpi_dt_fail(why, MPI_ERR_TYPE,
		                   "%s is a named type: it has no contents", dt->name);
	if (maxi < x->ni || maxa < x->na || maxd < x->nd)
		return mpi_dt_fail(why, MPI_ERR_ARG,
		                   "the arrays are too small: need %d integers, %d "
		                   "addresses, %d datatypes", x->ni, x->na, x->nd);
	if (x->ni)
		memcpy(ints, x->ints, x->ni * sizeof *ints);
	if (x->na)
		memcpy(addrs, x->addrs, x->na * sizeof *addrs);
	/* Derived types handed out are new references the caller frees
	 * with MPI_Type_free, as the standard says. */
	for (int i = 0; i < x->nd; i++) {
		types[i] = x->types[i];
		mpi_dt_retain(types[i]);
	}
	return MPI_SUCCESS;
}

int
mpi_dt_set_name(MPI_Datatype dt, const char *name, const char **why)
{
	int rc = check_type(dt, "datatype", why);
	if (rc)
		return rc;
	if (!name)
		return mpi_dt_fail(why, MPI_ERR_ARG, "type_name is NULL");
	/* Longer names are cut, as MPI allows. */
	snprintf(dt->name, sizeof dt->name, "%s", name);
	return MPI_SUCCESS;
}
