/* Logging (internal).
 *
 * Off by default.  GROVE_LOG=error|warn|info|debug|trace selects the level;
 * GROVE_LOG_FILE=path.%p (%p: pid, %r: role-rank) writes per process files
 * instead of stderr.  Every line carries time, role, rank and pid.
 */
#ifndef GROVE_LOG_H
#define GROVE_LOG_H

enum grove_log_level {
	GROVE_LOG_OFF = 0,
	GROVE_LOG_ERROR,
	GROVE_LOG_WARN,
	GROVE_LOG_INFO,
	GROVE_LOG_DEBUG,
	GROVE_LOG_TRACE,
};

/* Process-wide log state: the level is read once from the environment and
 * the identity is set once when a process takes its role; both are global
 * because every module logs and none should need a handle to do so. */
extern int log_level_;

void log_set_identity(const char *role, long rank);
void log_write(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void log_init(void);

#define GROVE_LOG(level, ...)                                                  \
	do {                                                                   \
		if (__builtin_expect(log_level_ >= (level), 0))          \
			log_write((level), __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define log_error(...) GROVE_LOG(GROVE_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) GROVE_LOG(GROVE_LOG_WARN, __VA_ARGS__)
#define log_info(...) GROVE_LOG(GROVE_LOG_INFO, __VA_ARGS__)
#define log_debug(...) GROVE_LOG(GROVE_LOG_DEBUG, __VA_ARGS__)

#endif
