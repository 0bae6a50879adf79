/* The attach-mode connection file (internal): finding one back-end's
 * record in its text.  Pure: no I/O, so it is unit-tested and fuzzed on
 * its own.  Format (docs/api.md): the first line CONNFILE_FIRST_LINE and
 * the GROVE_PROTOCOL of the front-end that wrote it, "secret HEX",
 * "backends N", then one "rank host port parent_node be_node" line per
 * BE; empty lines and other lines starting with '#' are skipped.
 */
#ifndef GROVE_CONNFILE_H
#define GROVE_CONNFILE_H

#include <stddef.h>
#include <stdint.h>

/* The first line, then " N".  A comment to a reader from before the
 * protocol had a number, which goes on to its parent's handshake and is
 * told there that the versions differ.  No version may change it. */
#define CONNFILE_FIRST_LINE "# grove connection file, protocol"

typedef struct connfile_record {
	char secret_hex[65];
	uint32_t backends;
	char host[256];
	uint16_t port;
	uint32_t parent;  /* the parent's topology node id */
	uint32_t node;    /* the BE's own node id */
} connfile_record;

/* Finds the record of rank in text[0, len).  Returns 0 and fills *out;
 * GROVE_ENOENT when no line is for rank; GROVE_EPROTO when the file is
 * of another protocol version (checked first: err names both) or the
 * text is malformed (a line the format does not allow, a field out of range, no
 * secret, a rank with two records: the line of the second one);
 * GROVE_ENOMEM when checking an unordered file for repeated ranks needs
 * memory it cannot get.  err says which line and what is wrong. */
int connfile_find(const char *text, size_t len, uint32_t rank,
    connfile_record *out, char *err, size_t errlen);

#endif
