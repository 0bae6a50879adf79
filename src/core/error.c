#include "grove/error.h"

struct err_entry {
	int code;
	const char *name;
	const char *msg;
};

static const struct err_entry err_table[] = {
	{GROVE_OK, "GROVE_OK", "success"},
	{GROVE_EINVAL, "GROVE_EINVAL", "invalid argument"},
	{GROVE_ENOMEM, "GROVE_ENOMEM", "out of memory"},
	{GROVE_EFORMAT, "GROVE_EFORMAT",
	    "bad packet format string, or not the packet's format"},
	{GROVE_EPROTO, "GROVE_EPROTO", "protocol error from peer"},
	{GROVE_ETIMEDOUT, "GROVE_ETIMEDOUT", "timed out"},
	{GROVE_EAGAIN, "GROVE_EAGAIN", "no data available now"},
	{GROVE_ECLOSED, "GROVE_ECLOSED", "closed"},
	{GROVE_EAUTH, "GROVE_EAUTH", "authentication failed"},
	{GROVE_ESPAWN, "GROVE_ESPAWN", "process start failed"},
	{GROVE_ETOPO, "GROVE_ETOPO", "bad topology"},
	{GROVE_ENOENT, "GROVE_ENOENT", "not found"},
	{GROVE_EFILTER, "GROVE_EFILTER", "filter error"},
	{GROVE_ESYS, "GROVE_ESYS", "system error"},
	{GROVE_ERANGE, "GROVE_ERANGE", "out of range"},
	{GROVE_ENOTSUP, "GROVE_ENOTSUP", "not supported"},
	{GROVE_ELOST, "GROVE_ELOST", "members lost"},
};

static const struct err_entry *
err_find(int err)
{
	for (unsigned i = 0; i < sizeof err_table / sizeof err_table[0]; i++)
		if (err_table[i].code == err)
			return &err_table[i];
	return 0;
}

const char *
grove_strerror(int err)
{
	const struct err_entry *e = err_find(err);
	return e ? e->msg : "unknown error";
}

const char *
grove_err_name(int err)
{
	const struct err_entry *e = err_find(err);
	return e ? e->name : "GROVE_E?";
}
