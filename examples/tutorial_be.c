/* Tutorial back-end: answers "value" requests from tutorial_fe.
 *
 *   tutorial_be                            started by Grove (spawn mode)
 *   tutorial_be --attach FILE --rank R     attach mode, connection file
 *
 * A request with tag TUT_TAG_VALUE carries "%d" round; the reply, on the
 * stream the request came on and with the same tag, is "%d" 10 * rank +
 * round, so the front-end can check every answer.  The back-end runs until
 * the front-end destroys the network (grove_be_recv returns GROVE_ECLOSED).
 * See docs/tutorial.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grove/backend.h>

/* The request tag; tutorial_fe.c uses the same number. */
#define TUT_TAG_VALUE 1

int
main(int argc, char **argv)
{
	const char *attach = NULL;
	long rank = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--attach") && i + 1 < argc)
			attach = argv[++i];
		else if (!strcmp(argv[i], "--rank") && i + 1 < argc)
			rank = strtol(argv[++i], NULL, 10);
	}

	grove_be *be = NULL;
	int rc;
	if (attach) {
		if (rank < 0) {
			fprintf(stderr, "usage: tutorial_be --attach FILE --rank R\n");
			return 2;
		}
		rc = grove_be_attach(attach, (uint32_t)rank, &be);
	} else {
		/* The bootstrap (where the parent is, the network secret)
		 * arrives on stdin. */
		rc = grove_be_init(&argc, &argv, &be);
	}
	if (rc < 0) {
		fprintf(stderr, "tutorial_be: cannot join the network: %s: %s\n",
		    grove_strerror(rc), be ? grove_be_last_error(be) : "");
		grove_be_destroy(be); /* be may be set on failure: free it */
		return 1;
	}
	uint32_t me = grove_be_rank(be);

	for (;;) {
		uint32_t stream;
		int32_t tag;
		grove_packet *p;
		rc = grove_be_recv(be, &stream, &tag, &p, -1);
		if (rc == GROVE_ECLOSED)
			break; /* the front-end shut the network down */
		if (rc < 0) {
			fprintf(stderr, "tutorial_be[%u]: receive: %s\n", me,
			    grove_strerror(rc));
			break;
		}
		int32_t round;
		if (tag == TUT_TAG_VALUE &&
		    grove_packet_unpack(p, "%d", &round) == 0) {
			int32_t value = 10 * (int32_t)me + round;
			rc = grove_be_send(be, stream, tag, "%d", value);
			if (rc < 0)
				fprintf(stderr, "tutorial_be[%u]: send: %s\n", me,
				    grove_strerror(rc));
		} else {
			fprintf(stderr, "tutorial_be[%u]: unexpected tag %d "
			    "format \"%s\" (ignored)\n", me, tag,
			    grove_packet_format(p));
		}
		grove_packet_unref(p); /* we got a reference: drop it */
	}
	grove_be_destroy(be);
	return 0;
}
