#!/usr/bin/env python3
"""Checks that no folder includes from a folder it must not.

The rule is the module map of docs/internals.md, the one place it is
written: each row names a folder in its first cell and, in its last cell,
the folders it may include from, each in backquotes (other words there,
libuv or libc, are for the reader).  A folder may always include its own
files.  Every source file must lie in a folder of the map, so a new
folder cannot go unchecked.  Below the map, a line

    * pending: `FILE` -> `HEADER` (why)

lets one known violation stand while its fix is under way; a pending
entry that no longer occurs is reported, to be removed.

Usage: layers.py SOURCE_DIR [DOC]    (exit 1 on a violation)
"""
import os
import re
import sys

# Where the build looks for quoted includes after the including file's
# own folder (CMakeLists.txt, tests/tests.cmake), and for <...> includes.
QUOTE_PATH = ["src", "include", "tools", "tests/integration"]
ANGLE_PATH = ["src", "include"]
SOURCE_EXT = (".c", ".h", ".cc", ".cpp", ".hpp")
# Trees that are not source: build directories, the fuzz corpora.
SKIP_DIRS = re.compile(r"^(build[^/]*|\.git|tests/fuzz/corpus)(/|$)")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
ROW = re.compile(r"^\|\s*`([^`]+?)/?`\s*\|.*\|([^|]*)\|\s*$")
PENDING = re.compile(r"^\*\s*pending:\s*`([^`]+)`\s*->\s*`([^`]+)`")


def read_map(doc):
    """Returns ({folder: set of folders it may include}, {(file, header)})."""
    allowed, pending, in_map = {}, set(), False
    with open(doc, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_map = line.strip() == "## Module map"
                continue
            if not in_map:
                continue
            m = ROW.match(line)
            if m and m.group(1) != "directory":
                uses = {u.rstrip("/") for u in re.findall(r"`([^`]+)`", m.group(2))}
                allowed[m.group(1).rstrip("/")] = uses
            m = PENDING.match(line)
            if m:
                pending.add((m.group(1), m.group(2)))
    return allowed, pending


def folder_of(path, folders):
    """The longest folder of the map that holds path, or None."""
    best = None
    for f in folders:
        if (path == f or path.startswith(f + "/")) and (
                best is None or len(f) > len(best)):
            best = f
    return best


def resolve(src, rel, kind, name):
    """The repository path an include names, or None (a system or a
    generated header)."""
    here = [os.path.dirname(rel)] if kind == '"' else []
    for d in here + (QUOTE_PATH if kind == '"' else ANGLE_PATH):
        p = os.path.normpath(os.path.join(d, name))
        if not p.startswith("..") and os.path.isfile(os.path.join(src, p)):
            return p
    return None


def main():
    src = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(src, "docs/internals.md")
    allowed, pending = read_map(doc)
    if not allowed:
        print(f"FAIL: no module map found in {doc}")
        return 1
    bad = []
    for f, uses in sorted(allowed.items()):
        for u in sorted(uses - set(allowed)):
            bad.append(f"{doc}: `{f}` may include from `{u}`, which is no folder of the map")
    seen = set()
    for top in sorted({f.split("/")[0] for f in allowed}):
        for dirpath, dirnames, files in os.walk(os.path.join(src, top)):
            reldir = os.path.relpath(dirpath, src)
            dirnames[:] = sorted(d for d in dirnames
                                 if not SKIP_DIRS.match(os.path.join(reldir, d)))
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                rel = os.path.join(reldir, name)
                here = folder_of(rel, allowed)
                if here is None:
                    bad.append(f"{rel}: in no folder of the module map")
                    continue
                with open(os.path.join(src, rel), encoding="utf-8",
                          errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(src, rel, m.group(1), m.group(2))
                        there = target and folder_of(target, allowed)
                        if not there or there == here or there in allowed[here]:
                            continue
                        if (rel, target) in pending:
                            seen.add((rel, target))
                            print(f"pending: {rel}:{n} includes {target}")
                            continue
                        bad.append(f"{rel}:{n}: includes {target}: `{here}` "
                                   f"may not include from `{there}`")
    for rel, target in sorted(pending - seen):
        print(f"note: pending `{rel}` -> `{target}` no longer occurs: "
              f"remove it from {doc}")
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print(f"(the rule: the module map of {doc})")
        return 1
    print(f"{len(allowed)} folders include only from where the module map allows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
