/* Grove's P-LogP model: parameters per link class, the broadcast formulas
 * of the parameterized LogP model, the segment-size and tree-shape
 * optimizer, and the construction of the trees it chooses.
 *
 * Units everywhere: sizes in bytes, times in microseconds (double).
 *
 * Pure code: nothing here performs I/O except the functions that parse,
 * write or print parameter files (they take a path or a FILE*).  No
 * function exits or asserts on bad input; every fallible one returns 0 or
 * a negative grove_err and, where it takes err/errlen, says why there
 * (for files: "line 7: ...").  docs/logp.md describes the model, the file
 * format and the optimizer.
 */
#ifndef GROVE_LOGP_H
#define GROVE_LOGP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grove/error.h"
#include "grove/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Parameter sets ---------------------------------------------------- */

/* Link classes: where sender and receiver are relative to each other. */
typedef enum grove_logp_class {
	GROVE_LOGP_HOST = 0, /* same host */
	GROVE_LOGP_LAN = 1,  /* same cluster, different hosts */
	GROVE_LOGP_WAN = 2,  /* different clusters */
} grove_logp_class;
#define GROVE_LOGP_NCLASSES 3

/* At most this many samples per class: sizes 2^0 .. 2^47. */
#define GROVE_LOGP_MAX_SAMPLES 48

/* "host", "lan", "wan" (NULL for a bad value) and back. */
const char *grove_logp_class_name(grove_logp_class c);
int grove_logp_class_parse(const char *name, grove_logp_class *out);

/* One measured message size.  `or_` because `or` is a C++ keyword. */
typedef struct grove_logp_sample {
	uint64_t size; /* bytes, a power of two */
	double os;     /* send overhead os(size) */
	double or_;    /* receive overhead or(size) */
	double g;      /* gap g(size) */
	/* CPU work w(size): the CPU time sender and receiver spend together
	 * on one message on an idle link, wake-ups included; 0 when not
	 * measured.  Only the host CPU bound uses it (sys.cores). */
	double w;
} grove_logp_sample;

/* The values of one class at one message size. */
typedef struct grove_logp_point {
	double L, os, or_, g, w;
} grove_logp_point;

typedef struct grove_logp_params grove_logp_params;

int grove_logp_params_create(grove_logp_params **out);
void grove_logp_params_destroy(grove_logp_params *p);

/* Sets (or replaces) class c: latency L and n samples, sizes powers of two
 * in strictly increasing order, every value finite and >= 0, 1 <= n <=
 * GROVE_LOGP_MAX_SAMPLES.  The samples are copied.  GROVE_EINVAL with the
 * reason in err (may be NULL) when they break a rule. */
int grove_logp_params_set_class(grove_logp_params *p, grove_logp_class c,
    double L, const grove_logp_sample *samples, size_t n, char *err,
    size_t errlen);
/* Removes class c (nothing if absent). */
void grove_logp_params_clear_class(grove_logp_params *p, grove_logp_class c);
int grove_logp_params_has(const grove_logp_params *p, grove_logp_class c);
/* The samples of class c (n of them; 0 and NULL when absent) and L. */
size_t grove_logp_params_samples(const grove_logp_params *p,
    grove_logp_class c, const grove_logp_sample **samples, double *L);
/* A free-text note written as '#' lines at the top of saved files (who
 * measured, where, when).  NULL clears it.  Parsing does not restore it. */
int grove_logp_params_set_note(grove_logp_params *p, const char *note);

/* The cores of the host the parameters were measured on (a machine fact
 * `grove logp measure` records; 0 when unknown).  Set: 0 clears,
 * GROVE_EINVAL above GROVE_LOGP_MAX_CORES. */
#define GROVE_LOGP_MAX_CORES 65536u
int grove_logp_params_set_cores(grove_logp_params *p, uint32_t cores);
uint32_t grove_logp_params_cores(const grove_logp_params *p);

/* CPU work in a crowd: w measured while a message goes round a ring of K
 * processes per core, free to run on any core, so that every hop wakes a
 * different process whose caches others have used since (`grove logp
 * measure`'s "crowd" rows; docs/logp.md).  Per class, at most
 * GROVE_LOGP_MAX_CROWDS values of K in [2, GROVE_LOGP_MAX_CROWD_K]. */
#define GROVE_LOGP_MAX_CROWDS 8
#define GROVE_LOGP_MAX_CROWD_K 65536u
/* Sets (or replaces) the crowd of K processes of class c (which must be
 * present): n samples of which only size and w count (sizes powers of two
 * in increasing order, w finite and >= 0).  GROVE_EINVAL with the reason
 * in err (may be NULL); GROVE_ENOENT without class c.  Setting class c
 * again (grove_logp_params_set_class) removes its crowds. */
int grove_logp_params_set_crowd(grove_logp_params *p, grove_logp_class c,
    uint32_t K, const grove_logp_sample *samples, size_t n, char *err,
    size_t errlen);
/* How many crowds class c has (0 when absent); their K, increasing, go
 * to K[0 .. GROVE_LOGP_MAX_CROWDS - 1] when K is not NULL. */
size_t grove_logp_params_crowds(const grove_logp_params *p,
    grove_logp_class c, uint32_t *K);
/* The samples of the crowd of K processes of class c (0 and NULL when
 * there is none). */
size_t grove_logp_params_crowd_samples(const grove_logp_params *p,
    grove_logp_class c, uint32_t K, const grove_logp_sample **samples);
/* The CPU work of one hop of size m when `per_core` processes take turns
 * on each core.  Without crowds: w(m) of grove_logp_params_at, whatever
 * per_core is.  With them: each crowd's w at m (interpolated in m as
 * grove_logp_params_at does), then piecewise linear in log2 K between
 * the crowds, the first crowd's value below its K and the last one's
 * above.  GROVE_ENOENT when class c is absent. */
int grove_logp_params_work_at(const grove_logp_params *p, grove_logp_class c,
    double m, double per_core, double *out);

/* os, or, g, w at size m: piecewise linear between samples; below the first
 * sample the first sample's values; above the last, the straight line
 * through the last two samples continued (through the origin when there
 * is one sample), never decreasing below the last sample's value.
 * GROVE_ENOENT when class c is absent. */
int grove_logp_params_at(const grove_logp_params *p, grove_logp_class c,
    double m, grove_logp_point *out);

/* The file format (docs/logp.md):
 *
 *   grove-logp 1            header: magic and format version
 *   cores 2                 optional: the measuring host's cores
 *   class lan               a section per link class
 *   L 15.2                  latency, microseconds
 *   # bytes  os  or  g  w   samples: size and three (or four) times, us
 *   1        1.1 1.3 2.0 9.5
 *
 * '#' starts a comment.  Errors name the line: "line 7: ...". */
int grove_logp_params_parse_string(const char *text, grove_logp_params **out,
    char *err, size_t errlen);
/* Reads a file.  The message in err does not repeat the path (the caller
 * names the file).  GROVE_ENOENT or GROVE_ESYS when it cannot be read. */
int grove_logp_params_load(const char *path, grove_logp_params **out,
    char *err, size_t errlen);
/* Writes the file format; the output parses back to the same values. */
int grove_logp_params_write(const grove_logp_params *p, FILE *f);
int grove_logp_params_save(const grove_logp_params *p, const char *path,
    char *err, size_t errlen);
/* A human-readable table per class: size, os, or, g, s, r, bandwidth. */
int grove_logp_params_print_table(const grove_logp_params *p, FILE *f);

/* ---- Formulas (section 2.1 and 3 of the P-LogP paper) ---------------- */

/* One network layer at one segment size: the class's values plus the
 * sender and receiver completion times s and r. */
typedef struct grove_logp_link {
	double L, os, or_, g;
	double s; /* time until the sender can send the next message */
	double r; /* time until the receiver has the message */
} grove_logp_link;

/* Single-layer link of class c: s = max(g, os), r = L + g.  The paper
 * has s = g under its assumption g >= os; measured gaps can be smaller
 * than os for small messages, and a sender cannot start its next send
 * before its overhead is over. */
int grove_logp_link_single(const grove_logp_params *p, grove_logp_class c,
    double m, grove_logp_link *out);
/* Wide-area link (wide through the gateways of local networks):
 * s_w = max(g_l, os_l, os_w), r_w = L_w + g_w: the paper's
 * max(g_l, os_w) with g_l taken as at least os_l, as above. */
int grove_logp_link_wide(const grove_logp_params *p, grove_logp_class local,
    grove_logp_class wide, double m, grove_logp_link *out);

/* min h such that sum_{i=0..h} d^i >= P (0 for P <= 1; P - 1 for d = 1). */
uint32_t grove_logp_min_height(uint64_t P, uint32_t d);

/* T = (k - 1) * gamma + lambda. */
double grove_logp_completion(uint64_t k, double gamma, double lambda);

/* The flat tree over P processes: gamma = max(g, (P-1) s),
 * lambda = (P-2) s + r.  Both 0 for P <= 1. */
void grove_logp_flat(const grove_logp_link *l, uint32_t P, double *gamma,
    double *lambda);
/* A tree of degree d and height h (upper bounds):
 * gamma = max(g, or + d s), lambda = h ((d-1) s + r).  Both 0 for h = 0. */
void grove_logp_tree(const grove_logp_link *l, uint32_t d, uint32_t h,
    double *gamma, double *lambda);
/* The binomial tree over P processes sending whole messages, each node
 * sending to its highest-mask child first (as MPICH does): lambda exactly (the time the last
 * process has the message).  0 for P <= 1. */
double grove_logp_binomial_lambda(const grove_logp_link *l, uint32_t P);

/* Two-layer pipelined gap: max(g_w, or_w + d_w s_w + d_l s_l), and (not
 * in the paper, never binding when the WAN dominates) the LAN tree's own
 * max(g_l, or_l + d_l s_l).  d_w = 0: no WAN layer; d_l = 0: no LAN. */
double grove_logp_pipelined_gamma(const grove_logp_link *w, uint32_t d_w,
    const grove_logp_link *l, uint32_t d_l);
/* gamma' = max(g_w - or_w - d_w s_w, s_l): the share of gamma the LAN may
 * use without slowing the WAN. */
double grove_logp_gamma_prime(const grove_logp_link *w, uint32_t d_w,
    const grove_logp_link *l);

/* ---- Broadcast plans and the optimizer -------------------------------- */

typedef enum grove_logp_scheme {
	/* segmented, WAN and LAN pipelined, tree shapes and segment size
	 * chosen by the optimizer (section 3.2) */
	GROVE_LOGP_OPTIMIZED = 0,
	/* MagPIe's original: whole message, flat WAN tree with blocking
	 * sends, then binomial LAN trees */
	GROVE_LOGP_ORIGINAL = 1,
	/* whole message to all coordinators at once (non-blocking), then
	 * binomial LAN trees */
	GROVE_LOGP_WHOLE_NONBLOCKING = 2,
	/* segmented, WAN then LAN (sequential composition), each layer
	 * optimized on its own */
	GROVE_LOGP_SEQUENTIAL = 3,
} grove_logp_scheme;

/* "optimized", "original", "whole-nonblocking", "sequential". */
const char *grove_logp_scheme_name(grove_logp_scheme s);
int grove_logp_scheme_parse(const char *name, grove_logp_scheme *out);

/* The cluster map: `clusters` clusters of `per_cluster` processes each.
 * Inside a cluster links are of class `local`, between clusters `wide`.
 * clusters = 1 is a single-layer LAN broadcast, per_cluster = 1 a
 * single-layer WAN broadcast. */
typedef struct grove_logp_system {
	uint32_t clusters;
	uint32_t per_cluster;
	grove_logp_class local; /* usually GROVE_LOGP_LAN */
	grove_logp_class wide;  /* usually GROVE_LOGP_WAN */
	/* 0: every process has a host of its own (the paper's system).
	 * Else every process runs on one host with this many cores, and a
	 * set of message hops that happen at the same time cannot take
	 * less than their CPU work, w(m) of the local class each, over the
	 * cores (the host CPU bound, docs/logp.md). */
	uint32_t cores;
	/* With cores > 0: 1 when every process that forwards also hands
	 * the message to a process of its own on the same host, as Grove
	 * maps a broadcast tree (a CP forwards, and its last child is the
	 * process's own BE; grove_logp_tree_to_mrnet).  A tree with n
	 * forwarding processes then makes n more hops and runs n more
	 * processes, which the host CPU bound counts.  0: the paper's
	 * system, where a process that forwards is the one that receives. */
	int handoff;
} grove_logp_system;

/* One layer of a plan.  d = 0 and h = 0 when the layer has one process. */
typedef struct grove_logp_layer {
	uint32_t P;           /* processes in the layer (clusters or per cluster) */
	uint32_t d, h;        /* tree degree and height */
	int binomial;         /* the layer is a binomial tree (d = root degree) */
	uint64_t k, m;        /* segments and segment size in this layer */
	double gamma, lambda; /* of this layer alone */
} grove_logp_layer;

typedef struct grove_logp_plan {
	grove_logp_scheme scheme;
	uint64_t size;        /* M */
	uint64_t k, m;        /* segments, segment size */
	double T;             /* predicted completion time */
	double gamma, lambda; /* T = (k-1) gamma + lambda; for the sequential
	                       * scheme k, m, gamma and lambda are the WAN
	                       * layer's (the LAN's with one cluster) and
	                       * T = T_wan + T_lan */
	grove_logp_layer wan, lan;
	uint64_t evaluated;   /* segment cuts the search evaluated (each
	                       * with every degree pair it tries); 1 for
	                       * the whole-message schemes */
} grove_logp_plan;

typedef enum grove_logp_search {
	/* the paper's heuristics, except that LAN degrees above
	 * gamma'/s_l are tried too (only those that lower the height) */
	GROVE_LOGP_HEURISTIC = 0,
	GROVE_LOGP_EXHAUSTIVE = 1, /* every k in [1, M/elem], every degree */
	GROVE_LOGP_PAPER = 2,      /* the paper's heuristics exactly */
} grove_logp_search;

/* The plan for broadcasting `size` bytes made of elements of `elem` bytes
 * (size must be a multiple of elem) with `scheme`.  For the segmented
 * schemes the segment count and tree degrees are searched with `how`; the
 * whole-message schemes have nothing to search.  Errors: GROVE_EINVAL
 * (0 clusters or processes, bad elem), GROVE_ENOENT (a class the system
 * needs is missing from p), GROVE_ERANGE (the predicted times overflow,
 * or an exhaustive search would evaluate more than 1e9 configurations),
 * with the reason in err. */
int grove_logp_bcast_plan(const grove_logp_params *p,
    const grove_logp_system *sys, grove_logp_scheme scheme, uint64_t size,
    uint32_t elem, grove_logp_search how, grove_logp_plan *out, char *err,
    size_t errlen);

/* The optimized (pipelined) scheme's prediction for one given choice: k
 * segments (of elem * ceil(n/k) bytes, n = size/elem), WAN degree d_w and
 * LAN degree d_l (ignored for a layer of one process). */
int grove_logp_bcast_eval(const grove_logp_params *p,
    const grove_logp_system *sys, uint64_t size, uint32_t elem, uint64_t k,
    uint32_t d_w, uint32_t d_l, grove_logp_plan *out, char *err,
    size_t errlen);
/* The same for a given tree of those degrees whose height is h_w (WAN)
 * and h_l (LAN) rather than the minimal one: a deep or unbalanced tree,
 * such as a network's topology, pipelines over more levels than the
 * complete tree of its largest fan-out.  0 for a layer: its minimal
 * height, as grove_logp_bcast_eval.  Otherwise h must lie between the
 * minimal height for the degree and P - 1 (a chain) of that layer;
 * GROVE_EINVAL with the reason in err when it does not. */
int grove_logp_bcast_eval_depth(const grove_logp_params *p,
    const grove_logp_system *sys, uint64_t size, uint32_t elem, uint64_t k,
    uint32_t d_w, uint32_t d_l, uint32_t h_w, uint32_t h_l,
    grove_logp_plan *out, char *err, size_t errlen);

/* Prints a plan (text, or one JSON object when json is set). */
int grove_logp_plan_print(const grove_logp_plan *plan, int json, FILE *f);

/* ---- Trees --------------------------------------------------------------
 * A tree over P processes is a parent array: parent[0] = -1 (the root)
 * and 0 <= parent[i] < i for every other process.  The array does not
 * say in which order a process sends to its children; the model assumes
 * the order that makes its bounds hold: in d-ary trees increasing index,
 * in binomial trees the highest mask first (decreasing index), and a
 * coordinator serves its WAN children before its LAN children. */

/* The complete d-ary tree: minimal height for degree d. O(P). */
int grove_logp_tree_kary(uint32_t P, uint32_t d, int32_t *parent);
/* The binomial tree (relative rank v receives from v - lowbit(v)). O(P). */
int grove_logp_tree_binomial(uint32_t P, int32_t *parent);
/* Two layers: process c * per_cluster + i is process i of cluster c; the
 * coordinators (i = 0) form a d_w-ary tree rooted at process 0, each
 * cluster a d_l-ary tree below its coordinator (d_l = 0: binomial).
 * A coordinator's WAN children come before its LAN children. O(P). */
int grove_logp_tree_two_layer(uint32_t clusters, uint32_t per_cluster,
    uint32_t d_w, uint32_t d_l, int32_t *parent);
/* The tree a plan describes, into parent[clusters * per_cluster]. */
int grove_logp_tree_for_plan(const grove_logp_plan *plan,
    const grove_logp_system *sys, int32_t *parent);

/* Maps a broadcast tree onto a Grove topology (docs/logp.md): process 0
 * is the FE, every other process with children is a CP whose last child
 * is a BE for the process itself, every leaf process is a BE.  All nodes
 * are on `host` (NULL: "localhost").  The MRNet text parses with
 * grove_topo_parse_string; P must be >= 2. */
int grove_logp_tree_to_mrnet(const int32_t *parent, uint32_t P,
    const char *host, char **out, char *err, size_t errlen);
int grove_logp_tree_to_topo(const int32_t *parent, uint32_t P,
    const char *host, grove_topo **out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
