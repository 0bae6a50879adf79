/* Open-addressing hash map with byte-string keys (see map.h).  Deletion
 * leaves a tombstone, so that probe chains stay whole; tombstones are
 * dropped when the table grows. */
#include <stdlib.h>
#include <string.h>

#include "monitor/map.h"

enum { SLOT_EMPTY = 0, SLOT_FULL, SLOT_DEAD };

struct slot {
	uint64_t hash;
	char *key;
	size_t klen;
	void *val;
	int state;
};

/* Blocks of deleted entries are kept for the next entries of the same
 * size, in lists threaded through the blocks themselves, for a few
 * sizes: a map whose entries come and go (the open instances of the
 * analysis: all keys of one length) would otherwise free and allocate
 * one per entry.  The blocks kept never outnumber the entries the map
 * once held; they go when it is freed. */
#define SPARE_SIZES 4

struct spare {
	size_t size;  /* 0: unused */
	void *head;   /* a block whose first bytes point to the next */
};

struct mon_map {
	size_t vsize;
	size_t cap;   /* a power of two, or 0 */
	size_t count; /* full slots */
	size_t used;  /* full + dead slots */
	struct slot *s;
	struct spare spare[SPARE_SIZES];
};

/* A block of size bytes (a value and its key). */
static void *
block_new(struct mon_map *m, size_t size)
{
	for (int i = 0; i < SPARE_SIZES; i++)
		if (m->spare[i].size == size && m->spare[i].head) {
			void *b = m->spare[i].head;
			memcpy(&m->spare[i].head, b, sizeof(void *));
			return b;
		}
	return malloc(size);
}

static void
block_free(struct mon_map *m, void *b, size_t size)
{
	for (int i = 0; i < SPARE_SIZES; i++)
		if (m->spare[i].size == size || !m->spare[i].head) {
			/* A list's size is taken by the first block kept
			 * while the list is empty. */
			m->spare[i].size = size;
			memcpy(b, &m->spare[i].head, sizeof(void *));
			m->spare[i].head = b;
			return;
		}
	free(b);
}

/* The size of the block of a value with a key of klen bytes. */
static size_t
block_size(const struct mon_map *m, size_t klen)
{
	size_t vs = m->vsize ? m->vsize : 1;
	vs = (vs + 15) & ~(size_t)15;
	if (vs < m->vsize || klen > SIZE_MAX - vs - 1)
		return 0;
	return vs + (klen ? klen : 1);
}

/* FNV-1a, 64 bits: keys are short names. */
uint64_t
mon_map_hash_more(uint64_t h, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t
hash_of(const void *key, size_t len)
{
	return mon_map_hash_more(MON_MAP_HASH_INIT, key, len);
}

struct mon_map *
mon_map_new(size_t vsize)
{
	struct mon_map *m = calloc(1, sizeof *m);
	if (m)
		m->vsize = vsize;
	return m;
}

void
mon_map_free(struct mon_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		if (m->s[i].state == SLOT_FULL)
			free(m->s[i].val); /* and its key: one block */
	for (int i = 0; i < SPARE_SIZES; i++)
		while (m->spare[i].head) {
			void *b = m->spare[i].head;
			memcpy(&m->spare[i].head, b, sizeof(void *));
			free(b);
		}
	free(m->s);
	free(m);
}

static struct slot *
find(const struct mon_map *m, const void *key, size_t klen, uint64_t h)
{
	if (!m->cap)
		return NULL;
	for (size_t i = h & (m->cap - 1), n = 0; n < m->cap;
	     i = (i + 1) & (m->cap - 1), n++) {
		struct slot *s = &m->s[i];
		if (s->state == SLOT_EMPTY)
			return NULL;
		if (s->state == SLOT_FULL && s->hash == h && s->klen == klen &&
		    !memcmp(s->key, key, klen))
			return s;
	}
	return NULL;
}

uint64_t
mon_map_hash(const void *key, size_t klen)
{
	return hash_of(key, klen);
}

void *
mon_map_get_h(const struct mon_map *m, const void *key, size_t klen,
              uint64_t h)
{
	struct slot *s = find(m, key, klen, h);
	return s ? s->val : NULL;
}

void *
mon_map_get(const struct mon_map *m, const void *key, size_t klen)
{
	return mon_map_get_h(m, key, klen, hash_of(key, klen));
}

/* Moves every full slot into a table of ncap slots. */
static int
grow(struct mon_map *m, size_t ncap)
{
	struct slot *ns = calloc(ncap, sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->s[i].state != SLOT_FULL)
			continue;
		size_t j = m->s[i].hash & (ncap - 1);
		while (ns[j].state != SLOT_EMPTY)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->s[i];
	}
	free(m->s);
	m->s = ns;
	m->cap = ncap;
	m->used = m->count;
	return 0;
}

void *
mon_map_put(struct mon_map *m, const void *key, size_t klen, int *created)
{
	return mon_map_put_h(m, key, klen, hash_of(key, klen), created);
}

void *
mon_map_put_h(struct mon_map *m, const void *key, size_t klen, uint64_t h,
              int *created)
{
	struct slot *s = find(m, key, klen, h);
	if (created)
		*created = 0;
	if (s)
		return s->val;
	if ((m->used + 1) * 4 > m->cap * 3) {
		/* At most half full afterwards; a table full of tombstones
		 * is rebuilt at its own size. */
		size_t ncap = 16;
		while ((m->count + 1) * 2 > ncap) {
			if (ncap > (SIZE_MAX / sizeof(struct slot)) / 4)
				return NULL;
			ncap *= 2;
		}
		if (grow(m, ncap) != 0)
			return NULL;
	}
	/* The value and, after it, the key: one block per entry. */
	size_t bs = block_size(m, klen);
	char *v = bs ? block_new(m, bs) : NULL;
	if (!v)
		return NULL;
	memset(v, 0, m->vsize);
	char *k = v + bs - (klen ? klen : 1);
	memcpy(k, key, klen);
	size_t i = h & (m->cap - 1);
	while (m->s[i].state == SLOT_FULL)
		i = (i + 1) & (m->cap - 1);
	if (m->s[i].state == SLOT_EMPTY)
		m->used++;
	m->s[i] = (struct slot){h, k, klen, v, SLOT_FULL};
	m->count++;
	if (created)
		*created = 1;
	return v;
}

void
mon_map_del(struct mon_map *m, const void *key, size_t klen)
{
	mon_map_del_h(m, key, klen, hash_of(key, klen));
}

void
mon_map_del_h(struct mon_map *m, const void *key, size_t klen, uint64_t h)
{
	struct slot *s = find(m, key, klen, h);
	if (!s)
		return;
	block_free(m, s->val, block_size(m, s->klen)); /* and its key */
	s->key = NULL;
	s->val = NULL;
	s->state = SLOT_DEAD;
	m->count--;
}

size_t
mon_map_count(const struct mon_map *m)
{
	return m->count;
}

void *
mon_map_next(const struct mon_map *m, size_t *pos, const char **key,
             size_t *klen)
{
	while (*pos < m->cap) {
		struct slot *s = &m->s[(*pos)++];
		if (s->state != SLOT_FULL)
			continue;
		if (key)
			*key = s->key;
		if (klen)
			*klen = s->klen;
		return s->val;
	}
	return NULL;
}
