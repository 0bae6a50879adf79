#include "core/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

int log_level_ = GROVE_LOG_OFF;

/* Identity and output of this process's log; see log.h for why global. */
static char log_role[16] = "proc";
static long log_rank = -1;
static FILE *log_out;

static int
level_from_name(const char *s)
{
	static const char *names[] = {"off", "error", "warn", "info", "debug", "trace"};
	for (int i = 0; i < 6; i++)
		if (strcasecmp(s, names[i]) == 0)
			return i;
	char *end = NULL;
	long n = strtol(s, &end, 10);
	if (end != s && *end == 0 && n >= 0)
		return n > GROVE_LOG_TRACE ? GROVE_LOG_TRACE : (int)n;
	/* Logging is what would report it: say so where the user looks. */
	fprintf(stderr, "grove: GROVE_LOG='%s' is not a level (off, error, "
	    "warn, info, debug, trace, or 0 to 5); logging stays off\n", s);
	return GROVE_LOG_OFF;
}

__attribute__((constructor)) void
log_init(void)
{
	const char *lvl = getenv("GROVE_LOG");
	log_level_ = lvl ? level_from_name(lvl) : GROVE_LOG_OFF;
}

static void
open_output(void)
{
	const char *pattern = getenv("GROVE_LOG_FILE");
	if (!pattern || !*pattern) {
		log_out = stderr;
		return;
	}
	char path[4096];
	size_t o = 0;
	const char *p = pattern;
	for (; *p && o + 32 < sizeof path; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += snprintf(path + o, sizeof path - o, "%ld", (long)getpid());
			p++;
		} else if (p[0] == '%' && p[1] == 'r') {
			o += snprintf(path + o, sizeof path - o, "%s-%ld", log_role, log_rank);
			p++;
		} else {
			path[o++] = *p;
		}
	}
	path[o] = 0;
	if (*p) {
		fprintf(stderr, "grove: GROVE_LOG_FILE is too long (%zu bytes); "
		    "logging to stderr\n", strlen(pattern));
		log_out = stderr;
		return;
	}
	log_out = fopen(path, "a");
	if (!log_out) {
		fprintf(stderr, "grove: GROVE_LOG_FILE: cannot open %s: %s; "
		    "logging to stderr\n", path, strerror(errno));
		log_out = stderr;
	} else {
		setvbuf(log_out, NULL, _IOLBF, 0);
	}
}

void
log_set_identity(const char *role, long rank)
{
	snprintf(log_role, sizeof log_role, "%s", role);
	log_rank = rank;
	if (log_out && log_out != stderr) {
		fclose(log_out);
		log_out = NULL;
	}
}

void
log_write(int level, const char *file, int line, const char *fmt, ...)
{
	static const char *tags[] = {"", "E", "W", "I", "D", "T"};
	if (!log_out)
		open_output();
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	const char *base = strrchr(file, '/');
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(log_out, "%ld.%06ld %s %s[%ld] pid %ld %s:%d: %s\n", (long)ts.tv_sec,
	    ts.tv_nsec / 1000, tags[level], log_role, log_rank, (long)getpid(),
	    base ? base + 1 : file, line, msg);
}
