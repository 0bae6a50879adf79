/* A broken filter library, for tests: the names a tool would pass to
 * grove_net_load_filter are variables, not functions.  Called as a filter,
 * a variable would make every node of the stream jump into data and
 * crash, so Grove must refuse to load them ("... is not a function").
 *
 *   not_a_filter              a variable where the filter should be
 *   good_entry                a function, but its optional companion
 *   good_entry_state_free     is a variable
 */
#include <grove/filter.h>

int not_a_filter = 42;

int good_entry(grove_filter_call *call);
int good_entry_state_free = 0;

/* Never run: the load fails on its companion. */
int
good_entry(grove_filter_call *call)
{
	(void)call;
	return GROVE_EINVAL;
}
