/* Grove MPI's wire-up cards (src/mpi/card.c): the fields a card's text
 * parses to, the host taken after the fourth field (a TCP listener in
 * the host would make a cluster of every rank), malformed cards
 * refused, this process's card written and read back, and which cards
 * share a kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mpi/card.h"

static void
test_parse_fields(void **state)
{
	(void)state;
	struct mpi_card c;
	assert_int_equal(mpi_card_parse("123 1 abcdef - node-7", &c), 0);
	assert_int_equal(c.pid, 123);
	assert_int_equal(c.flags, 1);
	assert_string_equal(c.boot, "abcdef");
	assert_string_equal(c.tcp, "-");
	assert_string_equal(c.host, "node-7");
	assert_int_equal(mpi_card_parse("1 0 - -   h", &c), 0);
	assert_string_equal(c.host, "h");
	/* Two ranks of one host over TCP: their listeners differ, their
	 * host does not. */
	assert_int_equal(mpi_card_parse("7 1 ab 10.0.0.1:4001 h1", &c), 0);
	assert_string_equal(c.tcp, "10.0.0.1:4001");
	assert_string_equal(c.host, "h1");
	assert_int_equal(mpi_card_parse("8 1 ab 10.0.0.1:4002 h1", &c), 0);
	assert_string_equal(c.host, "h1");
}

static void
test_parse_refused(void **state)
{
	(void)state;
	struct mpi_card c;
	/* No host. */
	assert_int_equal(mpi_card_parse("123 1 abcdef -", &c), -1);
	assert_int_equal(mpi_card_parse("123 1 abcdef - ", &c), -1);
	assert_int_equal(mpi_card_parse("123 1 abcdef", &c), -1);
	assert_int_equal(mpi_card_parse("", &c), -1);
	/* The three-field cards of earlier start-ups through a launcher. */
	assert_int_equal(mpi_card_parse("123 abcdef host", &c), -1);
	/* No process has pid 0 or below. */
	assert_int_equal(mpi_card_parse("0 1 ab - h", &c), -1);
	assert_int_equal(mpi_card_parse("-5 1 ab - h", &c), -1);
	/* Numbers run into the next field. */
	assert_int_equal(mpi_card_parse("12x 1 ab - h", &c), -1);
	assert_int_equal(mpi_card_parse("12 1x ab - h", &c), -1);
	/* A field longer than its array would shift the fields after it. */
	char text[MPI_CARD_MAX];
	snprintf(text, sizeof text, "9 1 %040d - h", 0);
	assert_int_equal(mpi_card_parse(text, &c), -1);
	snprintf(text, sizeof text, "9 1 ab %064d h", 0);
	assert_int_equal(mpi_card_parse(text, &c), -1);
	/* The longest fields that fit are taken whole. */
	snprintf(text, sizeof text, "9 1 %039d %063d h", 0, 0);
	assert_int_equal(mpi_card_parse(text, &c), 0);
	assert_int_equal((int)strlen(c.boot), 39);
	assert_int_equal((int)strlen(c.tcp), 63);
	assert_string_equal(c.host, "h");
}

static void
test_mine_round_trip(void **state)
{
	(void)state;
	struct mpi_card mine, back;
	char text[MPI_CARD_MAX];
	mpi_card_mine(&mine, NULL);
	assert_int_equal(mine.pid, (long)getpid());
	assert_string_equal(mine.tcp, "-");
	assert_null(strpbrk(mine.host, " \t\n"));
	assert_true(mine.host[0] != '\0');
	mpi_card_format(&mine, text, sizeof text);
	assert_int_equal(mpi_card_parse(text, &back), 0);
	assert_int_equal(back.pid, mine.pid);
	assert_int_equal(back.flags, mine.flags);
	assert_string_equal(back.boot, mine.boot);
	assert_string_equal(back.tcp, mine.tcp);
	assert_string_equal(back.host, mine.host);
	assert_true(mpi_card_same_kernel(&back, &mine));

	mpi_card_mine(&mine, "127.0.0.1:40001");
	mpi_card_format(&mine, text, sizeof text);
	assert_int_equal(mpi_card_parse(text, &back), 0);
	assert_string_equal(back.tcp, "127.0.0.1:40001");
	assert_string_equal(back.host, mine.host);
}

static void
test_same_kernel(void **state)
{
	(void)state;
	struct mpi_card a, b;
	assert_int_equal(mpi_card_parse("1 1 aa - h1", &a), 0);
	assert_int_equal(mpi_card_parse("2 1 aa - h1", &b), 0);
	assert_true(mpi_card_same_kernel(&a, &b));
	/* Another kernel under the same host name (a cluster's machines). */
	assert_int_equal(mpi_card_parse("2 1 bb - h1", &b), 0);
	assert_false(mpi_card_same_kernel(&a, &b));
	/* An unknown boot id leaves the host name to decide. */
	assert_int_equal(mpi_card_parse("2 1 - - h1", &b), 0);
	assert_true(mpi_card_same_kernel(&a, &b));
	assert_int_equal(mpi_card_parse("2 1 aa - h2", &b), 0);
	assert_false(mpi_card_same_kernel(&a, &b));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_mine_round_trip),
		cmocka_unit_test(test_same_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
