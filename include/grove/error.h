/* Grove error codes: one enum for the whole library.
 *
 * Every fallible function returns 0 on success or a negative grove_err.
 * grove_strerror() turns a code into a fixed message; handles that can
 * fail with context (networks, topologies) also keep a last-error string.
 */
#ifndef GROVE_ERROR_H
#define GROVE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grove_err {
	GROVE_OK = 0,
	GROVE_EINVAL = -1,     /* invalid argument */
	GROVE_ENOMEM = -2,     /* out of memory */
	GROVE_EFORMAT = -3,    /* packet format string bad or does not match */
	GROVE_EPROTO = -4,     /* malformed or unexpected message from a peer */
	GROVE_ETIMEDOUT = -5,  /* deadline passed */
	GROVE_EAGAIN = -6,     /* nothing available now (non-blocking call) */
	GROVE_ECLOSED = -7,    /* peer, stream or network is closed */
	GROVE_EAUTH = -8,      /* peer failed authentication */
	GROVE_ESPAWN = -9,     /* a process could not be started */
	GROVE_ETOPO = -10,     /* bad topology specification or file */
	GROVE_ENOENT = -11,    /* no such stream, rank, filter, file ... */
	GROVE_EFILTER = -12,   /* a filter failed to load or to run */
	GROVE_ESYS = -13,      /* system call failed; see last-error text */
	GROVE_ERANGE = -14,    /* value out of range (rank, index, size) */
	GROVE_ENOTSUP = -15,   /* operation not supported in this role/mode */
	GROVE_ELOST = -16,     /* some members of the operation are gone */
} grove_err;

/* A static, human-readable message for a code (never NULL). */
const char *grove_strerror(int err);

/* The symbolic name of a code, e.g. "GROVE_ETIMEDOUT" (never NULL). */
const char *grove_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif
