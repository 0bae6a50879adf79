#!/usr/bin/env bash
# One CLI: every command's and subcommand's --help (exit 0, usage on
# standard output, exit statuses said), a bad option (exit 2, one line in
# the one style), --file wherever --topology is taken, grove --version and
# grove help.
# Arguments: $1 build directory, $2 source directory.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# --- grove --version, grove help ---------------------------------------------
expect_status 0 --version
grep -Eqx 'grove [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out" ||
	fail "grove --version printed '$(cat "$tmp/out")'"
expect_status 0 help
grep -q '^usage: grove COMMAND' "$tmp/out" || fail "grove help prints usage"
grep -q 'Exit status' "$tmp/out" || fail "grove help says no exit status"
expect_status 0 help bench micro
grep -q '^usage: grove bench micro' "$tmp/out" ||
	fail "grove help bench micro is not bench micro's usage"
expect_status 0 help trace dump
grep -q '^usage: grove trace dump' "$tmp/out" ||
	fail "grove help trace dump is not dump's usage"
expect_status 2 help no-such-command
grep -qx "grove help: unknown command: no-such-command; try 'grove help --help'" \
	"$tmp/err" || fail "grove help no-such-command: $(cat "$tmp/err")"
expect_status 2 no-such-command
expect_status 2 --no-such-option

# --- every --help ------------------------------------------------------------
# Commands and subcommands, as one word each (split below).
all="topo top demo model logp run bench trace
bench:micro bench:trace bench:offered-load bench:startup bench:skew
bench:bcast bench:align bench:floor
trace:list trace:dump trace:stats trace:clean trace:sample
model:params model:bcast logp:measure"
for c in $all; do
	read -ra words <<<"${c//:/ }"
	expect_status 0 "${words[@]}" --help
	grep -q '^usage: ' "$tmp/out" || fail "grove ${words[*]} --help: no usage"
	[ ! -s "$tmp/err" ] || fail "grove ${words[*]} --help wrote on stderr"
done
# A subcommand's help is its own, not the whole command's.
expect_status 0 trace dump --help
! grep -q 'trace clean' "$tmp/out" || fail "trace dump --help shows clean"
expect_status 0 bench micro --help
! grep -q 'bench floor' "$tmp/out" || fail "bench micro --help shows floor"

# Exit statuses are documented in every converted command's help.
documented="topo top demo model logp bench trace bench:micro bench:trace
trace:list trace:dump trace:stats trace:clean trace:sample"
for c in $documented; do
	read -ra words <<<"${c//:/ }"
	expect_status 0 "${words[@]}" --help
	grep -q 'Exit status' "$tmp/out" ||
		fail "grove ${words[*]} --help says no exit status"
done

# --- a bad option: exit 2, one line, the one style ---------------------------
one_style="topo top demo bench:micro bench:trace bench:floor
trace:list trace:dump trace:stats trace:clean trace:sample"
for c in $one_style; do
	read -ra words <<<"${c//:/ }"
	cmd="grove ${words[*]}"
	expect_status 2 "${words[@]}" --no-such-option
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qx \
		"$cmd: unknown option: --no-such-option; try '$cmd --help'" \
		"$tmp/err" || fail "$cmd --no-such-option: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "$cmd --no-such-option wrote on stdout"
	expect_status 2 "${words[@]}" -Z
	grep -qx "$cmd: unknown option: -Z; try '$cmd --help'" "$tmp/err" ||
		fail "$cmd -Z: $(cat "$tmp/err")"
done
# The commands whose options are still parsed by hand: a usage error.
for c in model:params model:bcast logp:measure bench:offered-load \
    bench:startup bench:skew bench:bcast bench:align; do
	read -ra words <<<"${c//:/ }"
	expect_status 2 "${words[@]}" --no-such-option
done
expect_status 2 bench no-such-benchmark
grep -qx "grove bench: unknown benchmark: no-such-benchmark; try 'grove bench --help'" \
	"$tmp/err" || fail "unknown benchmark: $(cat "$tmp/err")"

# --- --file wherever --topology is taken --------------------------------------
# A missing file is reported as such (exit 1), never as an unknown option;
# --file with --topology or --backends is a usage error.
for c in demo top bench:micro bench:trace; do
	read -ra words <<<"${c//:/ }"
	cmd="grove ${words[*]}"
	expect_status 1 "${words[@]}" -f "$tmp/none.top"
	grep -q "^$cmd: $tmp/none.top: " "$tmp/err" ||
		fail "$cmd -f: $(cat "$tmp/err")"
	expect_status 1 "${words[@]}" --file "$tmp/none.top"
	expect_status 2 "${words[@]}" --file "$tmp/none.top" --topology flat
	grep -q "give --topology or --file, not both" "$tmp/err" ||
		fail "$cmd --file --topology: $(cat "$tmp/err")"
	expect_status 2 "${words[@]}" --file "$tmp/none.top" -b 4
done
expect_status 2 top --file "$tmp/none.top" --hosts "$tmp/none.hosts"

# A file's tree is the one that runs (3 back-ends under 2 CPs).
printf 'localhost:0 => localhost:1 localhost:2 ;\nlocalhost:1 => localhost:3 localhost:4 ;\nlocalhost:2 => localhost:5 ;\n' >"$tmp/t.top"
expect_status 0 bench micro --file "$tmp/t.top" --rt-iters 2 --thru-iters 2 --json
grep -q '"backends": 3' "$tmp/out" || fail "bench micro --file: $(cat "$tmp/out")"
echo "cli consistency ok"
