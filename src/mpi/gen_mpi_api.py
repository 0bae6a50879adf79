#!/usr/bin/env python3
"""Generates, from include/grove_mpi_functions.h, the two files the build
of libgrove-mpi needs:

  mpi_fn_list.h  GROVE_MPI_FN_(Name) for every function (function ids of
                 the statistics and tracing)
  mpi_weak.c     every MPI_Name as a weak function that calls PMPI_Name
                 (the profiling interface: a tool may define MPI_Name and
                 call PMPI_Name).  Weak aliases would need both names in
                 one file; a forwarding function costs one jump.

Usage: gen_mpi_api.py FUNCTIONS_H OUT_DIR
"""
import os
import re
import sys

API = re.compile(r"^GROVE_MPI_API_\((?P<ret>[^,]+), (?P<name>\w+), \((?P<args>.*)\)\)\s*$")
PARAM_NAME = re.compile(r"(\w+)\s*(\[[^\]]*\]\s*)*$")


def params(args):
    if args.strip() in ("", "void"):
        return []
    names = []
    for p in args.split(","):
        p = p.strip()
        if p == "...":
            names.append("...")
            continue
        m = PARAM_NAME.search(p)
        if not m:
            raise SystemExit("cannot find the parameter name in '%s'" % p)
        names.append(m.group(1))
    return names


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def main():
    src, out = sys.argv[1], sys.argv[2]
    fns = []
    with open(src) as f:
        for line in f:
            m = API.match(line)
            if m:
                fns.append((m.group("ret").strip(), m.group("name"), m.group("args")))
    if not fns:
        raise SystemExit("no GROVE_MPI_API_ lines in " + src)
    head = "/* Generated from include/grove_mpi_functions.h by src/mpi/gen_mpi_api.py. */\n"
    lst = head + "".join("GROVE_MPI_FN_(%s)\n" % n for _, n, _ in fns)
    weak = [head, "#include <mpi.h>\n"]
    for ret, name, args in fns:
        names = params(args)
        if "..." in names:
            # Variadic (MPI_Pcontrol): the arguments cannot be passed on;
            # the profiling interface gets the fixed ones only.
            fixed = [n for n in names if n != "..."]
            call = "PMPI_%s(%s)" % (name, ", ".join(fixed))
        else:
            call = "PMPI_%s(%s)" % (name, ", ".join(names))
        weak.append("__attribute__((weak)) %s\nMPI_%s%s\n{\n\treturn %s;\n}\n"
                    % (ret, name, "(" + args + ")", call))
    os.makedirs(out, exist_ok=True)
    write_if_changed(os.path.join(out, "mpi_fn_list.h"), lst)
    write_if_changed(os.path.join(out, "mpi_weak.c"), "".join(weak))


if __name__ == "__main__":
    main()
