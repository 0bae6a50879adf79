# Opening a `grove report` page in Debian's chromium, headless (sourced by
# tests/cli/report_*.sh after common.sh).
#
#   need_chromium            installs chromium when missing (apt-get); when
#                            it cannot be, says so and exits 77 (skipped)
#   open_page HTML           loads the page; its DOM after the script ran in
#                            $tmp/dom.html, the browser's log (console
#                            messages) in $tmp/chromium.log; then checks
#                            both (lib/report_page.py)

need_chromium() {
	command -v chromium >/dev/null 2>&1 && return 0
	if [ "$(id -u)" -eq 0 ]; then
		{ apt-get update && apt-get install -y chromium; } \
			>"$tmp/apt.log" 2>&1 || true
	elif command -v sudo >/dev/null 2>&1; then
		{ sudo -n apt-get update && sudo -n apt-get install -y chromium; } \
			>"$tmp/apt.log" 2>&1 || true
	fi
	if ! command -v chromium >/dev/null 2>&1; then
		echo "SKIP: the browser part needs Debian's chromium, which could" \
		     "not be installed: $(tail -n 1 "$tmp/apt.log" 2>/dev/null)" >&2
		exit 77
	fi
}

open_page() {
	# A profile of its own: no state from another run, and no clash with
	# a browser running meanwhile.  --no-sandbox: as root the sandbox
	# refuses to start.
	timeout 120 chromium --headless --disable-gpu --no-sandbox \
		--user-data-dir="$tmp/chromium-profile" --enable-logging=stderr \
		--v=0 --dump-dom "file://$1" >"$tmp/dom.html" \
		2>"$tmp/chromium.log" ||
		fail "chromium could not open $1: $(tail -n 3 "$tmp/chromium.log")"
	python3 "$(dirname "${BASH_SOURCE[0]}")/report_page.py" dom \
		"$tmp/dom.html" "$tmp/chromium.log" ||
		fail "the report does not render cleanly in chromium"
}
