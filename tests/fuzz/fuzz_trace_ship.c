/* libFuzzer target: a shipped event space (bytes from the network) is
 * checked before anything is created, the front-end writes its clock
 * offset into what was created, and the copy is read back and put on the
 * front-end's timeline by the same code the exporters use (before and
 * after the offset is written, so that the sender's own claims are read
 * too).  None of it may crash or overflow. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/align.h"
#include "trace/reader.h"
#include "trace/trace_impl.h"

static void
read_and_align(const char *name)
{
	char err[256];
	struct trace_seg s;
	if (trace_seg_open(name, &s, err, sizeof err) != 0)
		return;
	struct trace_proc p;
	if (trace_proc_read(&s, &p) == 0) {
		struct trace_set set = {1, &p, 0, 0};
		trace_set_align(&set, TRACE_TIMELINE_FRONTEND, NULL);
		(void)trace_proc_ns(&p, p.t0 + 1000);
	}
	trace_proc_free(&p);
	trace_seg_close(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The front-end's measurement, made once: back-end 0 (the name
	 * below) measured 50 ms ahead. */
	static struct trace_fe_offsets *offsets;
	if (!offsets) {
		grove_skew sk = {0, 50000000, 1000};
		offsets = trace_fe_offsets_new();
		if (!offsets || trace_fe_offsets_set(offsets, &sk, 1) != 0)
			return 0;
	}
	char name[64];
	snprintf(name, sizeof name, "grove.fuzz%d.be.0", (int)getpid());
	if (trace_space_materialize(name, data, size) != 0)
		return 0;
	read_and_align(name);
	trace_fe_offsets_apply(offsets, name);
	read_and_align(name);
	shm_unlink(name);
	return 0;
}
