/* libFuzzer target: a shipped event space (bytes from the network) is
 * checked before anything is created, and what is created is read back by
 * the same reader the exporters use.  Neither may crash. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/reader.h"
#include "trace/trace_impl.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[64], err[256];
	snprintf(name, sizeof name, "grove.fuzz%d.be.0", (int)getpid());
	if (trace_space_materialize(name, data, size) != 0)
		return 0;
	struct trace_seg s;
	if (trace_seg_open(name, &s, err, sizeof err) == 0) {
		struct trace_proc p;
		if (trace_proc_read(&s, &p) == 0)
			trace_proc_free(&p);
		trace_seg_close(&s);
	}
	shm_unlink(name);
	return 0;
}
