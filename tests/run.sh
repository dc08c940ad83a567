#!/bin/sh
# tests/run.sh: the whole suite, as `make test` runs it:
#
#	BUILD=build sh tests/run.sh
#
# In order: the unit test binaries $BUILD/tests/test-*, the fuzz corpora
# replayed through their harnesses ($BUILD/tests/fuzz/replay-NAME on
# tests/fuzz/corpus/NAME), toolcell-audit on logs written by the real
# writer (tests/e2e/audit/run.sh), the raw
# end-to-end cases (tests/e2e/raw/run.sh), the official SDK's tests
# (tests/e2e/sdk/), then, when root, the raw and SDK tests again with
# TOOLCELL_AS=nobody, so the servers also run unprivileged.  Each step's
# TAP is shown as it runs and counted; the last line is
#
#	toolcell: N passed, M failed, K skipped
#
# and the status is non-zero if anything failed.  TOOLCELL_MUST_WORK=1 counts
# every skip as a failure.
set -u

cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export BUILD

passed=0 failed=0 skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-suite.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

skip() {	# reason
	echo "# SKIP $1"
	skipped=$((skipped + 1))
	if [ "${TOOLCELL_MUST_WORK:-0}" = 1 ]; then
		echo "# TOOLCELL_MUST_WORK=1: a skip is a failure"
	fi
}

fail() {	# reason
	echo "# FAIL $1"
	failed=$((failed + 1))
}

# Runs "$@" (after the step name $1), showing its output and keeping it in
# $tmp/log; sets rc to its exit status.
run_logged() {
	echo "# --- $1"
	shift
	{ "$@" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/log"
	rc=$(cat "$tmp/rc")
}

# Runs "$@" (after the step name $1), showing its output, then counts the TAP
# it printed: ok / not ok lines at the start of a line, "# SKIP" directives
# (and "not ok ... # TODO") as skips, the plan, and "Bail out!".
tap_step() {
	name=$1
	run_logged "$@"
	awk -v name="$name" -v rc="$rc" '
	/^ok([ \t]|$)/ {
		n++
		if (tolower($0) ~ /#[ \t]*skip/) s++; else p++
		next
	}
	/^not ok([ \t]|$)/ {
		n++
		if (tolower($0) ~ /#[ \t]*todo/) s++; else f++
		next
	}
	/^1\.\.[0-9]+/ {
		plan = substr($0, 4) + 0
		if (plan == 0 && tolower($0) ~ /#[ \t]*skip/) s++
		hasplan = 1
		next
	}
	/^Bail out!/ { bail = 1 }
	END {
		if (hasplan && plan != n) {
			printf "# FAIL %s: planned %d tests, ran %d\n", name, plan, n
			f++
		} else if (!hasplan) {
			printf "# FAIL %s: no plan\n", name
			f++
		}
		if (bail) {
			printf "# FAIL %s: bailed out\n", name
			f++
		}
		if (rc != 0 && f == 0) {
			printf "# FAIL %s: exit status %d but no failed test\n", name, rc
			f++
		}
		printf "%d %d %d\n", p, f, s > "/dev/stderr"
	}' "$tmp/log" 2>"$tmp/counts"
	count "$name"
}

# Node's TAP reporter nests subtests, so its own totals are used instead.
node_step() {
	name=$1
	run_logged "$@"
	awk -v name="$name" -v rc="$rc" '
	/^# pass [0-9]+$/	{ p = $3; seen = 1 }
	/^# fail [0-9]+$/	{ f += $3 }
	/^# cancelled [0-9]+$/	{ f += $3 }
	/^# skipped [0-9]+$/	{ s += $3 }
	/^# todo [0-9]+$/	{ s += $3 }
	END {
		if (!seen) {
			printf "# FAIL %s: no totals from node\n", name
			f++
		} else if (rc != 0 && f == 0) {
			printf "# FAIL %s: exit status %d but no failed test\n", name, rc
			f++
		}
		printf "%d %d %d\n", p, f, s > "/dev/stderr"
	}' "$tmp/log" 2>"$tmp/counts"
	count "$name"
}

count() {
	read -r p f s <"$tmp/counts" || { p=0 f=1 s=0; }
	echo "# $1: $p passed, $f failed, $s skipped"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

raw() {
	if ! command -v jq >/dev/null 2>&1; then
		fail "$1: jq is required: apt-get install -y jq"
		return
	fi
	tap_step "$1" sh tests/e2e/raw/run.sh
}

sdk() {
	set -- tests/e2e/sdk/*.test.mjs
	if [ ! -f "$1" ]; then
		skip "sdk: no tests/e2e/sdk/*.test.mjs yet"
		return
	fi
	if ! command -v node >/dev/null 2>&1; then
		skip "sdk: no node (sh mk/deps.sh node)"
		return
	fi
	node_step "sdk${TOOLCELL_AS:+ as $TOOLCELL_AS}" \
	    node --test --test-reporter=tap "$@"
}

# (a) unit tests
units=0
for t in "$BUILD"/tests/test-*; do
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
	units=$((units + 1))
	tap_step "unit ${t##*/}" "$t"
done
[ "$units" -gt 0 ] || echo "# --- unit: no $BUILD/tests/test-* binaries"

# (a1) every fuzz corpus, through its harness: one test per input
for t in "$BUILD"/tests/fuzz/replay-*; do
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
	name=${t##*/replay-}
	tap_step "fuzz $name" "$t" "tests/fuzz/corpus/$name"
done

# (a2) the audit log's reader on real logs
tap_step "audit" sh tests/e2e/audit/run.sh

# (b) raw end-to-end, (c) SDK
raw "raw"
sdk

# (b), (c) again as nobody
if [ "$(id -u)" -eq 0 ]; then
	if id nobody >/dev/null 2>&1; then
		TOOLCELL_AS=nobody
		export TOOLCELL_AS
		raw "raw as nobody"
		sdk
		unset TOOLCELL_AS
	else
		skip "no user nobody: the unprivileged pass did not run"
	fi
else
	skip "not root: the pass as nobody did not run"
fi

if [ "${TOOLCELL_MUST_WORK:-0}" = 1 ] && [ "$skipped" -gt 0 ]; then
	failed=$((failed + skipped))
	skipped=0
fi
echo "toolcell: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
