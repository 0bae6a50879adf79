/* The quantities of cluster maps (grove/cluster.h) one at a time: a
 * program that takes a latency or bandwidth as an option reads it with
 * the map's own units and rules, and nothing else (a '#' or a space that
 * would end or split a map's word is no part of a quantity). */
#ifndef GROVE_TOPO_QUANTITY_H
#define GROVE_TOPO_QUANTITY_H

/* A duration: a non-negative decimal number with s, ms, us or ns; a bare
 * 0.  Seconds into *seconds; 0, or GROVE_EINVAL for anything else. */
int cluster_parse_duration(const char *s, double *seconds);

/* A rate: a non-negative decimal number with B/s, KB/s, MB/s, GB/s,
 * KiB/s, MiB/s, GiB/s, bit/s, kbit/s, Mbit/s or Gbit/s; a bare 0 (no
 * limit).  Bytes per second into *Bps; 0, or GROVE_EINVAL. */
int cluster_parse_rate(const char *s, double *Bps);

#endif
