#!/usr/bin/env bash
# One CLI: every command's and subcommand's --help (exit 0, usage on
# standard output, its own, exit statuses said), a bad option, a missing
# value and a stray argument (exit 2, one line in the one style), the
# table's short letters, --file wherever --topology is taken, grove
# --version and grove help.
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
bench:bcast bench:align bench:floor bench:recovery
trace:list trace:dump trace:stats trace:clean trace:sample
model:params model:bcast logp:measure"
for c in $all; do
	read -ra words <<<"${c//:/ }"
	expect_status 0 "${words[@]}" --help
	grep -q '^usage: ' "$tmp/out" || fail "grove ${words[*]} --help: no usage"
	[ ! -s "$tmp/err" ] || fail "grove ${words[*]} --help wrote on stderr"
done
# A subcommand's help is its own, not the whole command's: it starts with
# its usage, and no usage line is another subcommand's.
own_help() { # COMMAND SUBCOMMAND
	expect_status 0 "$1" "$2" --help
	grep -q "^usage: grove $1 $2 " "$tmp/out" ||
		fail "grove $1 $2 --help is not its own usage"
	local others
	others=$(grep -E "^(usage:)? +grove $1 " "$tmp/out" |
		grep -v "grove $1 $2 " || true)
	[ -z "$others" ] || fail "grove $1 $2 --help shows another's usage: $others"
}
expect_status 0 trace dump --help
! grep -q 'trace clean' "$tmp/out" || fail "trace dump --help shows clean"
benches="micro trace offered-load startup skew bcast align floor recovery"
for b in $benches; do
	own_help bench "$b"
done
own_help model params
own_help model bcast
own_help logp measure
own_help trace dump

# Exit statuses are documented in every command's and subcommand's help.
for c in $all; do
	read -ra words <<<"${c//:/ }"
	expect_status 0 "${words[@]}" --help
	grep -q 'Exit status' "$tmp/out" ||
		fail "grove ${words[*]} --help says no exit status"
done

# --- a bad option: exit 2, one line, the one style ---------------------------
one_style="topo top demo bench:micro bench:trace bench:offered-load
bench:startup bench:skew bench:bcast bench:align bench:floor bench:recovery
trace:list trace:dump trace:stats trace:clean trace:sample
model:params model:bcast logp:measure"
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
# An option without its value, and a stray argument: one line, the style.
for c in $one_style; do
	read -ra words <<<"${c//:/ }"
	cmd="grove ${words[*]}"
	expect_status 2 "${words[@]}" stray-argument
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^$cmd: .*; try '$cmd --help'\$" "$tmp/err" ||
		fail "$cmd stray-argument: $(cat "$tmp/err")"
done
for c in bench:offered-load bench:startup bench:skew bench:align \
    bench:floor logp:measure; do
	read -ra words <<<"${c//:/ }"
	cmd="grove ${words[*]}"
	opt=--topology
	[ "$c" = logp:measure ] && opt=--output
	expect_status 2 "${words[@]}" "$opt"
	grep -qx "$cmd: option needs a value: $opt; try '$cmd --help'" \
		"$tmp/err" || fail "$cmd $opt: $(cat "$tmp/err")"
done
# The table's letters mean the same everywhere: -b is --backends, never
# logp's --bandwidth (-B).
expect_status 2 logp measure -b 1MB/s
grep -qx "grove logp measure: unknown option: -b; try 'grove logp measure --help'" \
	"$tmp/err" || fail "logp measure -b: $(cat "$tmp/err")"
expect_status 2 logp measure -B 1 --class wan
grep -q "bad --bandwidth" "$tmp/err" || fail "logp measure -B: $(cat "$tmp/err")"
expect_status 2 bench no-such-benchmark
grep -qx "grove bench: unknown benchmark: no-such-benchmark; try 'grove bench --help'" \
	"$tmp/err" || fail "unknown benchmark: $(cat "$tmp/err")"

# --- --file wherever --topology is taken --------------------------------------
# A missing file is reported as such (exit 1), never as an unknown option;
# --file with --topology or --backends is a usage error.
for c in demo top bench:micro bench:trace bench:offered-load bench:startup \
    bench:skew bench:align bench:floor; do
	read -ra words <<<"${c//:/ }"
	cmd="grove ${words[*]}"
	expect_status 0 "${words[@]}" --help
	grep -q -- '-f, --file' "$tmp/out" || fail "$cmd --help: no --file"
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
expect_status 0 bench floor -f "$tmp/t.top" --rt-iters 2 -j
grep -q '"backends": 3, "cps": 2' "$tmp/out" ||
	fail "bench floor --file: $(cat "$tmp/out")"
expect_status 0 bench skew --file "$tmp/t.top" --repeat 1 --rounds 2 -j
grep -q '"backends": 3' "$tmp/out" || fail "bench skew --file: $(cat "$tmp/out")"
expect_status 0 bench align -f "$tmp/t.top" --repeat 1 -j
grep -q '"backends": 3' "$tmp/out" || fail "bench align --file: $(cat "$tmp/out")"
expect_status 0 bench startup -f "$tmp/t.top" --reps 1 --skew-rounds 2 -j
grep -q '"backends":3' "$tmp/out" || fail "bench startup --file: $(cat "$tmp/out")"
expect_status 0 bench offered-load -f "$tmp/t.top" --metrics 1 --seconds 0.5 \
    --warmup 0 -j
grep -q '"backends":3' "$tmp/out" ||
	fail "bench offered-load --file: $(cat "$tmp/out")"
echo "cli consistency ok"
