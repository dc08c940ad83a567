#!/bin/sh
# tests/e2e/raw/run.sh: raw end-to-end cases over stdio, as TAP.
#
# usage: sh tests/e2e/raw/run.sh [CASE...]	(default: every case)
#
# Each directory cases/NNNN-name/ is one case, numbered by family
# (0xxx protocol, 1xxx fs, 2xxx shell, 3xxx sqlite).  It holds:
#
#   args          the server's arguments, split on blanks; @ROOT@ is the
#                 case's fixture directory (canonical, absolute)
#   server        optional: which server, e.g. "fs" (the default)
#   setup         optional: sh script run as `sh setup FIXTURE INPUT`; it
#                 fills the directory FIXTURE and may write the whole input
#                 to the file INPUT, which then replaces in.jsonl (for
#                 over-long lines, carriage returns, raw bytes)
#   in.jsonl      the lines fed on stdin; @ROOT@ is replaced as in args
#   hold          optional: seconds to keep stdin open after the input; every
#                 response must have arrived by then, before end of file
#   expect.jsonl  the expected stdout lines, in any order
#   status        optional: the expected exit status (default 0)
#
# Every stdout line must be one JSON text.  Actual and expected lines are
# normalised by normalise() below (the one place that knows about volatile
# fields), sorted, and compared with diff -u.
#
# Environment: BUILD (default build); TOOLCELL_TIMEOUT (seconds per case,
# default 30); TOOLCELL_AS=user: when root, run the server as that user with
# setpriv, from a copy of the binary in a fresh mode-0755 directory.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
timeout_s=${TOOLCELL_TIMEOUT:-30}
umask 022

if ! command -v jq >/dev/null 2>&1; then
	echo "Bail out! jq is required: apt-get install -y jq"
	exit 1
fi

# The normaliser, applied to every actual and expected line:
# - integer ids become "#int:N" strings before parsing, so that ids of any
#   size are compared exactly (jq 1.6 reads numbers as doubles) and an
#   integer id never equals a string id;
# - a line that is not exactly one JSON text becomes {"NOT-JSON": line};
# - the fixture path becomes @ROOT@ in every string;
# - serverInfo.version becomes @VERSION@;
# - a non-empty error.message becomes @MESSAGE@ (the code is the contract);
# - the responses in a batch array are sorted.
# shellcheck disable=SC2016  # jq, not sh, expands these
norm_prog='
def bigid:
	gsub("(?<!\\\\)\"id\":\\s*(?<n>-?[0-9]+)(?=\\s*[,}\\]])";
	    "\"id\":\"#int:\(.n)\"");
def unroot:
	if $root == "" then . else
	walk(if type == "string" then split($root) | join("@ROOT@") else . end)
	end;
def volatile:
	if type != "object" then .
	else
		(if (.result | type) == "object"
		    and (.result.serverInfo | type) == "object"
		    and (.result.serverInfo.version | type) == "string"
		 then .result.serverInfo.version = "@VERSION@" else . end)
		| (if (.error | type) == "object"
		    and (.error.message | type) == "string"
		    and .error.message != ""
		 then .error.message = "@MESSAGE@" else . end)
	end;
. as $line
| try (bigid | fromjson) catch {"NOT-JSON": $line}
| unroot
| if type == "array" then map(volatile) | sort_by(tojson) else volatile end
'

normalise() {	# file root
	jq -cSR --arg root "$2" "$norm_prog" <"$1" | LC_ALL=C sort
}

# Running as another user.
as_uid='' as_gid='' as_bin=''
if [ -n "${TOOLCELL_AS:-}" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP TOOLCELL_AS=$TOOLCELL_AS needs root"
		exit 0
	fi
	if ! as_uid=$(id -u "$TOOLCELL_AS") ||
	    ! as_gid=$(id -g "$TOOLCELL_AS"); then
		echo "Bail out! TOOLCELL_AS: no user '$TOOLCELL_AS'"
		exit 1
	fi
	if ! command -v setpriv >/dev/null 2>&1; then
		echo "Bail out! TOOLCELL_AS needs setpriv (apt-get install -y util-linux)"
		exit 1
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-raw.XXXXXX") || {
	echo "Bail out! cannot make a temporary directory"
	exit 1
}
chmod 0755 "$work"
if [ -n "$as_uid" ]; then
	as_bin=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-bin.XXXXXX") || {
		echo "Bail out! cannot make a temporary directory"
		exit 1
	}
	chmod 0755 "$as_bin"
	got=$(setpriv --reuid="$as_uid" --regid="$as_gid" --clear-groups -- \
	    id -u 2>&1)
	if [ "$got" != "$as_uid" ]; then
		echo "Bail out! setpriv cannot switch to $TOOLCELL_AS: $got"
		exit 1
	fi
	echo "# running the servers as $TOOLCELL_AS ($as_uid:$as_gid)"
fi
cleanup() {
	rm -rf "$work"
	[ -z "$as_bin" ] || rm -rf "$as_bin"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The binary for server $1, or nothing if it is not built.
binary() {
	if [ ! -x "$build/toolcell-$1" ]; then
		return 1
	fi
	if [ -z "$as_uid" ]; then
		echo "$build/toolcell-$1"
		return 0
	fi
	if [ ! -x "$as_bin/toolcell-$1" ]; then
		cp "$build/toolcell-$1" "$as_bin/" &&
		    chmod 0755 "$as_bin/toolcell-$1" || return 1
	fi
	echo "$as_bin/toolcell-$1"
}

# Prints a file as TAP diagnostics, at most $2 lines.
diag() {
	sed -n "1,${2:-40}s/^/#   /p" "$1"
}

if [ $# -gt 0 ]; then
	cases=
	for c; do
		c=${c%/}
		cases="$cases ${c##*/}"
	done
else
	cases=$(cd "$here/cases" && for c in */; do
		[ -d "$c" ] && echo "${c%/}"; done | LC_ALL=C sort)
fi

n=0
for c in $cases; do
	n=$((n + 1))
done
echo "1..$n"

i=0 failed=0
for c in $cases; do
	i=$((i + 1))
	src=$here/cases/$c
	d=$work/$c
	why=
	mkdir -p "$d/root"
	chmod 0755 "$d"
	root=$(cd "$d/root" && pwd -P)

	if [ ! -d "$src" ]; then
		why="no such case"
	elif [ ! -f "$src/expect.jsonl" ]; then
		why="no expect.jsonl"
	fi

	srv=fs
	[ ! -f "$src/server" ] || srv=$(sed -n 1p "$src/server")
	if [ -z "$why" ] && ! bin=$(binary "$srv"); then
		why="no $BUILD/toolcell-$srv"
	fi

	if [ -z "$why" ] && [ -f "$src/setup" ] &&
	    ! (cd "$d" && sh "$src/setup" "$root" "$d/gen.jsonl") \
	    >"$d/setup.log" 2>&1; then
		why="setup failed"
		diag "$d/setup.log"
	fi

	if [ -z "$why" ]; then
		if [ -f "$d/gen.jsonl" ]; then
			input=$d/gen.jsonl
		elif [ -f "$src/in.jsonl" ]; then
			sed "s|@ROOT@|$root|g" "$src/in.jsonl" >"$d/in.jsonl"
			input=$d/in.jsonl
		else
			why="no in.jsonl and setup wrote no input"
		fi
	fi

	if [ -n "$why" ]; then
		echo "not ok $i - $c # $why"
		failed=$((failed + 1))
		continue
	fi

	args=
	[ ! -f "$src/args" ] || args=$(sed "s|@ROOT@|$root|g" "$src/args")
	hold=
	[ ! -f "$src/hold" ] || hold=$(sed -n 1p "$src/hold")
	want_status=0
	[ ! -f "$src/status" ] || want_status=$(sed -n 1p "$src/status")

	out=$d/stdout
	: >"$out"
	: >"$d/held"
	set -f
	# shellcheck disable=SC2086
	if [ -n "$as_uid" ]; then
		set -- setpriv --reuid="$as_uid" --regid="$as_gid" \
		    --clear-groups -- "$bin" $args
	else
		set -- "$bin" $args
	fi
	set +f
	# shellcheck disable=SC2094  # held is a snapshot of stdout, on purpose
	{
		cat "$input"
		if [ -n "$hold" ]; then
			sleep "$hold"
			cp "$out" "$d/held"
		fi
	} | (cd / && exec timeout -k 5 "$timeout_s" "$@") >"$out" \
	    2>"$d/stderr"
	status=$?

	ok=1
	normalise "$src/expect.jsonl" "" >"$d/expect"
	normalise "$out" "$root" >"$d/actual"
	if ! diff -u "$d/expect" "$d/actual" >"$d/diff"; then
		ok=0
	fi
	if [ -n "$hold" ]; then
		normalise "$d/held" "$root" >"$d/held.n"
		if ! diff -u "$d/expect" "$d/held.n" >"$d/held.diff"; then
			ok=0
			echo "# $c: responses missing $hold s after the input, before end of file:"
			diag "$d/held.diff" 60
		fi
	fi
	if [ "$status" != "$want_status" ]; then
		ok=0
		if [ "$status" = 124 ] || [ "$status" = 137 ]; then
			echo "# $c: timed out after $timeout_s s"
		else
			echo "# $c: exit status $status, expected $want_status"
		fi
	fi

	if [ $ok = 1 ]; then
		echo "ok $i - $c"
	else
		if [ -s "$d/diff" ]; then
			echo "# $c: stdout (expected -, actual +):"
			diag "$d/diff" 60
		fi
		if [ -s "$d/stderr" ]; then
			echo "# $c: stderr:"
			diag "$d/stderr" 20
		fi
		echo "not ok $i - $c"
		failed=$((failed + 1))
	fi
done

[ "$failed" -eq 0 ]
