#!/usr/bin/env bash
# README command 2: install what is missing, then run the whole test suite
# three ways:
#   build/        normal (Release) build, every test
#   build-asan/   AddressSanitizer + UBSan build, every test
#   build-fuzz/   clang + libFuzzer build, the fuzz targets (bounded runs)
# Exits non-zero if anything fails; the last line counts tests over all
# three runs: "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
problems=()

# Runs ctest in a build directory and adds its counts to the totals.
# A run that cannot even start counts as one failure.
run_ctest() {
	local dir=$1 name=$2
	shift 2
	local log="$dir/ctest-summary.log"
	echo "=== $name: ctest $*"
	ctest --test-dir "$dir" -j"$jobs" --output-on-failure "$@" \
		2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	# CTest ends with "NN% tests passed, M tests failed out of T".
	local line
	line=$(grep -E '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
	if [[ -z "$line" ]]; then
		if grep -q 'No tests were found' "$log"; then
			echo "=== $name: no tests"
			[[ $rc -eq 0 ]] && return 0
		fi
		failed=$((failed + 1))
		problems+=("$name: ctest did not run (status $rc)")
		return
	fi
	local f t
	f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
	t=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
	passed=$((passed + t - f))
	failed=$((failed + f))
	if [[ $f -ne 0 || $rc -ne 0 ]]; then
		local which
		which=$(sed -n '/The following tests FAILED:/,$p' "$log" |
			sed -nE 's/^[[:space:]]+[0-9]+ - ([^ ]+).*/\1/p' |
			tr '\n' ' ')
		problems+=("$name: $f of $t failed: $which")
		[[ $f -eq 0 ]] && failed=$((failed + 1))
	fi
}

# Configures and builds; a configure or build failure counts as one
# failure.  The build keeps going past a broken target so that the tests
# that did build still run (the others then fail as "not run").
build() {
	local dir=$1 name=$2
	shift 2
	echo "=== $name: configure and build ($dir)"
	mkdir -p "$dir"
	if ! cmake -S . -B "$dir" "$@" >"$dir/configure.log" 2>&1; then
		cat "$dir/configure.log"
		failed=$((failed + 1))
		problems+=("$name: configure failed")
		return 1
	fi
	local keep_going=(-k)
	[[ -f $dir/build.ninja ]] && keep_going=(-k 0)
	local targets=()
	for t in ${BUILD_TARGETS:-}; do
		targets+=(--target "$t")
	done
	if ! cmake --build "$dir" -j"$jobs" "${targets[@]}" -- \
		"${keep_going[@]}"; then
		failed=$((failed + 1))
		problems+=("$name: build failed")
	fi
	return 0
}

start=$SECONDS
bash scripts/install-deps.sh || exit 1

if build build normal -DCMAKE_BUILD_TYPE=Release; then
	run_ctest build normal
fi

# Leak checking stays on; UBSan stops at the first error (as ASan does) so
# a finding is a failed test, not a line lost in a log.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if build build-asan asan -DCMAKE_BUILD_TYPE=Debug -DGROVE_SANITIZE=ON; then
	run_ctest build-asan asan
fi

# Only the fuzz targets are built here: the rest was tested above.
fuzzers=$(for f in tests/fuzz/fuzz_*.c; do
	[[ -e $f ]] && basename "$f" .c
done)
if [[ -z $fuzzers ]]; then
	echo "=== fuzz: no fuzz targets in tests/fuzz"
elif BUILD_TARGETS=$fuzzers build build-fuzz fuzz -DCMAKE_BUILD_TYPE=Debug \
	-DGROVE_FUZZ=ON -DCMAKE_C_COMPILER=clang; then
	run_ctest build-fuzz fuzz -L fuzz
fi

echo
echo "=== test.sh finished in $((SECONDS - start)) s"
for p in "${problems[@]}"; do
	echo "FAILED: $p"
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
