/* The protocol between `grove top` / `grove bench offered-load` (the
 * front-end) and grove-agent (one per node, the back-ends).
 *
 * The front-end creates its streams first, then sends AGENT_START on a
 * control stream to every agent:
 *
 *   "%d %uld %ud %aud"   mode, interval_ns, metrics, stream ids
 *
 * AGENT_MODE_TOP: stream ids are {equiv, report, samples}.  The agent
 *   sends its kernel release on `equiv` ("%s", for the "equiv" filter),
 *   one AGENT_REPORT_FMT record on `report` (for the "report" filter),
 *   then every interval_ns one sample on `samples`:
 *   "%uld %uld %alf" start_ns, end_ns, the METRIC_COUNT amounts of
 *   agent/metrics.h over [start, end) (for the "timealign" filter).
 * AGENT_MODE_LOAD: stream ids are one stream per synthetic metric
 *   (`metrics` of them).  Every interval_ns the agent sends one sample
 *   "%uld %uld %alf" with the single value 1.0 on each stream, so an
 *   aggregated sum counts the samples it represents.
 *
 * Sample times are the agent's clock (CLOCK_REALTIME through Grove's
 * clock, so an injected test skew shows).  The agent exits when the
 * network shuts down.
 */
#ifndef GROVE_AGENT_PROTO_H
#define GROVE_AGENT_PROTO_H

#define AGENT_TAG_START 1
#define AGENT_START_FMT "%d %uld %ud %aud"

#define AGENT_MODE_TOP 1
#define AGENT_MODE_LOAD 2

/* Start-up activities on demand (grove bench startup), on any stream:
 * "%ud" a stream id; the agent answers on that stream with its kernel
 * release ("%s", for "equiv") or its AGENT_REPORT_FMT record (for
 * "report"), without starting to sample. */
#define AGENT_TAG_EQUIV_REQ 2
#define AGENT_TAG_REPORT_REQ 3

/* Stream index in AGENT_START's ids, mode TOP. */
#define AGENT_TOP_EQUIV 0
#define AGENT_TOP_REPORT 1
#define AGENT_TOP_SAMPLES 2
#define AGENT_TOP_NSTREAMS 3

/* Tags of what agents send. */
#define AGENT_TAG_EQUIV 10
#define AGENT_TAG_REPORT 11
#define AGENT_TAG_SAMPLE 12

/* ReportSelf: host, pid, kernel release, CPUs, MiB of memory. */
#define AGENT_REPORT_FMT "%s %ud %s %ud %uld"

#define AGENT_SAMPLE_FMT "%uld %uld %alf"

/* Bounds the front-end enforces and the agent checks. */
#define AGENT_MAX_STREAMS 1024
#define AGENT_MIN_INTERVAL_NS 1000000ull       /* 1 ms */
#define AGENT_MAX_INTERVAL_NS 3600000000000ull /* 1 h */

#endif
