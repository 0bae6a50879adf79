/* A hash map from byte-string keys to fixed-size values (internal to
 * the analysis module, src/monitor).
 *
 * The accumulators key their counts by names (a process "be 3", a path
 * "cp 1|link.recv|net|link:5->1|recv"), never by the index a pathmap
 * gave a process: two accumulators filled on two hosts, each with its
 * own pathmap, must merge by what the keys say.  Keys are copied; values
 * are zeroed when created.  Open addressing, grown at 3/4 load.
 *
 * Values never move: a value's address stays valid, whatever else is
 * put or deleted and however the table grows, until its own key is
 * deleted or the map freed.  The analysis keeps such addresses to feed
 * tuples without building and hashing keys (analysis.h, routes). */
#ifndef GROVE_MONITOR_MAP_H
#define GROVE_MONITOR_MAP_H

#include <stddef.h>
#include <stdint.h>

struct mon_map;

/* A map of values of vsize bytes; NULL when out of memory. */
struct mon_map *mon_map_new(size_t vsize);
void mon_map_free(struct mon_map *m);

/* The value of key, or NULL. */
void *mon_map_get(const struct mon_map *m, const void *key, size_t klen);

/* The value of key, created (zeroed) when missing; *created (when not
 * NULL) says which.  NULL when out of memory. */
void *mon_map_put(struct mon_map *m, const void *key, size_t klen,
                  int *created);

/* Removes key (nothing when missing). */
void mon_map_del(struct mon_map *m, const void *key, size_t klen);

size_t mon_map_count(const struct mon_map *m);

/* The same with the key's hash given (h = mon_map_hash(key, klen)), for
 * a caller that looks one key up several times and hashes it once. */
uint64_t mon_map_hash(const void *key, size_t klen);
/* The hash in parts: of a key whose first bytes were hashed into h
 * (MON_MAP_HASH_INIT for none), the next len bytes.  A caller whose keys
 * share a prefix hashes the prefix once. */
#define MON_MAP_HASH_INIT 1469598103934665603ull
uint64_t mon_map_hash_more(uint64_t h, const void *bytes, size_t len);
void *mon_map_get_h(const struct mon_map *m, const void *key, size_t klen,
                    uint64_t h);
void *mon_map_put_h(struct mon_map *m, const void *key, size_t klen,
                    uint64_t h, int *created);
void mon_map_del_h(struct mon_map *m, const void *key, size_t klen,
                   uint64_t h);

/* Iteration: *pos starts at 0; each call returns the next value and its
 * key (not NUL-terminated; *klen bytes), or NULL at the end.  The map
 * must not change during an iteration, except by mon_map_del of the
 * entry just returned. */
void *mon_map_next(const struct mon_map *m, size_t *pos, const char **key,
                   size_t *klen);

#endif
