#!/bin/sh
# tests/e2e/audit/run.sh: toolcell-audit on logs written by the real
# writer, as TAP.  Run from anywhere; BUILD (default build) names the build
# directory, relative to the top of the tree or absolute.
#
# Logs are written by $BUILD/tests/audit-mklog (tests/e2e/audit/mklog.c)
# from session.jsonl, whose records carry their times, so every output is
# known in advance: expect/NAME holds the exact standard output of case
# NAME (or its standard error, for the usage cases).  Tampered logs are
# made here with sed, awk and sha256sum, the way someone editing a log by
# hand would: altered, removed, swapped, inserted and forged records.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$top/$BUILD ;;
esac
audit=$build/toolcell-audit
mklog=$build/tests/audit-mklog

for b in "$audit" "$mklog"; do
	if [ ! -x "$b" ]; then
		echo "Bail out! $b is not built (make)"
		exit 1
	fi
done
for c in sha256sum awk sed diff; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "Bail out! $c is required"
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-audit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
umask 077

n=0 failed=0

ok() {		# description
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {	# description, then the diagnostic file $tmp/why
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' "$tmp/why"
}

# check NAME STATUS CMD...: runs CMD in $tmp; passes if it exits STATUS
# and its standard output is expect/NAME exactly.
check() {
	name=$1 want=$2
	shift 2
	(cd "$tmp" && "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	compare "$name" "$want" "$tmp/out"
}

# check_err NAME STATUS CMD...: the same with standard error.
check_err() {
	name=$1 want=$2
	shift 2
	(cd "$tmp" && "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	compare "$name" "$want" "$tmp/err"
}

compare() {	# name, status wanted, file to compare
	if [ "$rc" -ne "$2" ]; then
		{ echo "exit status $rc, not $2"; cat "$tmp/out" "$tmp/err"; } \
		    >"$tmp/why"
		not_ok "$1"
	elif ! diff -u "$here/expect/$1" "$3" >"$tmp/why" 2>&1; then
		not_ok "$1"
	else
		ok "$1"
	fi
}

# mk LOG [OPTIONS]: writes LOG in $tmp from session.jsonl.
mk() {
	log=$1
	shift
	if (cd "$tmp" && "$mklog" "$@" "$log" <"$here/session.jsonl") \
	    >"$tmp/why" 2>&1; then
		ok "audit-mklog $* $log"
	else
		not_ok "audit-mklog $* $log"
	fi
}

# mk_with LOG FIXTURE: appends the records of FIXTURE (a file in $tmp, or
# one here) to LOG in $tmp, each by the writer it names.
mk_with() {
	case $2 in
	/*) from=$2 ;;
	*) from=$here/$2 ;;
	esac
	if (cd "$tmp" && "$mklog" "$1" <"$from") >"$tmp/why" 2>&1; then
		ok "audit-mklog $1 < $(basename "$2")"
	else
		not_ok "audit-mklog $1 < $(basename "$2")"
	fi
}

# Prints line $2 of $tmp/$1.
line() {
	sed -n "${2}p" "$tmp/$1"
}

# Prints the digest at the end of a line (hash or hmac).
digest_of() {
	printf '%s\n' "$1" | sed 's/.*":"\([0-9a-f]*\)"}$/\1/'
}

# seal BODY FIELD: prints BODY (a line up to its prev) completed with
# FIELD (hash or hmac) holding the plain SHA-256 of BODY, as a forger
# without the key would compute it.
seal() {
	d=$(printf '%s' "$1" | sha256sum | cut -c1-64)
	printf '%s,"%s":"%s"}\n' "$1" "$2" "$d"
}

# Prints a line without its digest member.
body_of() {
	printf '%s\n' "$1" |
	    sed 's/,"hash":"[0-9a-f]*"}$//; s/,"hmac":"[0-9a-f]*"}$//'
}

printf '%s\n' 0123456789abcdef0123456789abcdef >"$tmp/key"
printf '%s\n' fedcba9876543210fedcba9876543210 >"$tmp/other.key"
chmod 600 "$tmp/key" "$tmp/other.key"

# --- A plain SHA-256 chain ---

mk log
check verify-intact 0 "$audit" verify log
check verify-intact.json 0 "$audit" verify --json log

# One byte of record 4 changed: 12 ms becomes 13 ms.
sed '4s/"duration_ms":12,/"duration_ms":13,/' "$tmp/log" >"$tmp/altered"
check verify-altered 1 "$audit" verify altered
check verify-altered.json 1 "$audit" verify --json altered

sed '5d' "$tmp/log" >"$tmp/removed"
check verify-removed 1 "$audit" verify removed

awk 'NR == 5 { held = $0; next } NR == 6 { print; print held; next }
    { print }' "$tmp/log" >"$tmp/swapped"
check verify-swapped 1 "$audit" verify swapped

# A forged record with its own correct hash, linked to record 4, put
# after it without renumbering the rest.
prev=$(digest_of "$(line log 4)")
forged=$(seal "{\"seq\":5,\"time\":\"2026-11-23T10:00:01.500Z\",\"event\":\
\"call\",\"call\":9,\"tool\":\"write_file\",\"decision\":\"run\",\"prev\":\"$prev\"" \
    hash)
{ sed -n '1,4p' "$tmp/log"; printf '%s\n' "$forged"; sed '1,4d' "$tmp/log"; } \
    >"$tmp/inserted"
check verify-inserted 1 "$audit" verify inserted

# Record 5 replaced by a forged one with its own correct hash, linked to
# record 4 and keeping seq 5: the forgery itself verifies, and only the
# next record's prev, which names the digest of the real record 5, shows
# it.
forged=$(seal "{\"seq\":5,\"time\":\"2026-11-23T10:00:02.000Z\",\"event\":\
\"call\",\"call\":2,\"tool\":\"write_file\",\"args\":{\"path\":\"notes.txt\"},\
\"decision\":\"run\",\"prev\":\"$prev\"" hash)
{ sed -n '1,4p' "$tmp/log"; printf '%s\n' "$forged"; sed '1,5d' "$tmp/log"; } \
    >"$tmp/replaced"
check verify-replaced 1 "$audit" verify replaced

# A copy of record 3 put after record 7.
awk 'NR == 3 { held = $0 } { print } NR == 7 { print held }' "$tmp/log" \
    >"$tmp/copied"
check verify-copied 1 "$audit" verify copied

size=$(wc -c <"$tmp/log")
head -c $((size - 20)) "$tmp/log" >"$tmp/partial"
check verify-partial 1 "$audit" verify partial

# Whole records cut from the end cannot be seen from the file alone.
sed '$d' "$tmp/log" | sed '$d' >"$tmp/cut"
check verify-cut-tail 0 "$audit" verify cut

sed '3s/^/{"not json/' "$tmp/log" >"$tmp/notjson"
check verify-not-json 1 "$audit" verify notjson

sed '6s/,"prev":"[0-9a-f]*"//' "$tmp/log" >"$tmp/noprev"
check verify-no-prev 1 "$audit" verify noprev

check verify-plain-with-key 1 "$audit" verify --key key log

# --- An HMAC-SHA-256 chain ---

mk klog -k key
check verify-hmac 0 "$audit" verify --key key klog
check verify-hmac-nokey 2 "$audit" verify klog
check verify-hmac-nokey.json 2 "$audit" verify --json klog
check verify-hmac-wrongkey 1 "$audit" verify --key other.key klog

# Record 3 changed from run to denied, sealed with a plain SHA-256: as
# "hash", then in the "hmac" member.
b=$(body_of "$(line klog 3)" | sed 's/"decision":"run"/"decision":"denied"/')
{ sed -n '1,2p' "$tmp/klog"; seal "$b" hash; sed '1,3d' "$tmp/klog"; } \
    >"$tmp/forged-hash"
check verify-hmac-forged-hash 1 "$audit" verify --key key forged-hash
{ sed -n '1,2p' "$tmp/klog"; seal "$b" hmac; sed '1,3d' "$tmp/klog"; } \
    >"$tmp/forged-hmac"
check verify-hmac-forged-hmac 1 "$audit" verify --key key forged-hmac

# The whole log rewritten as a plain chain: without the key that is not
# seen (the chain is consistent), with the key it is.
prev=0000000000000000000000000000000000000000000000000000000000000000
while IFS= read -r l; do
	b=$(body_of "$l" | sed "s/\"prev\":\"[0-9a-f]*\"\$/\"prev\":\"$prev\"/")
	l=$(seal "$b" hash)
	printf '%s\n' "$l"
	prev=$(digest_of "$l")
done <"$tmp/klog" >"$tmp/rewritten"
check verify-rewritten-nokey 0 "$audit" verify rewritten
check verify-rewritten-key 1 "$audit" verify --key key rewritten

# --- Rotation ---

mk rlog -r 1800
check verify-rotated 0 "$audit" verify rlog.3 rlog.2 rlog.1 rlog
check verify-rotated-one 0 "$audit" verify rlog.1
check verify-rotated-order 1 "$audit" verify rlog.2 rlog.3 rlog.1 rlog
mk klog-r -k key -r 1800 -n 2
check verify-rotated-keep 0 "$audit" verify --key key klog-r.2 klog-r.1 \
    klog-r
if [ -e "$tmp/klog-r.3" ]; then
	echo "klog-r.3 exists with -n 2" >"$tmp/why"
	not_ok "rotation keeps 2 files"
else
	ok "rotation keeps 2 files"
fi

# --- Several servers on one log ---

# Three servers (pids 3101, 3202, 3303) writing one log at once: each
# record is appended by its own writer, all of them open on the log.
mk_with shared shared.jsonl
check verify-shared 0 "$audit" verify shared
check verify-shared.json 0 "$audit" verify --json shared
check tail-shared 0 "$audit" tail -n 18 shared
check summary-shared 0 "$audit" summary shared
check summary-shared.json 0 "$audit" summary --json shared

# Two records of two servers swapped: the chain breaks where they are.
awk 'NR == 7 { held = $0; next } NR == 8 { print; print held; next }
    { print }' "$tmp/shared" >"$tmp/shared-swapped"
check verify-shared-swapped 1 "$audit" verify shared-swapped

# A record of server 3202 made out to be server 3101's: the writer is
# inside the bytes the hash covers.
sed '10s/"writer":{"pid":3202,"start":"c47d1e8b20a95f13"}/"writer":{"pid":3101,"start":"5e0c2a9d71b84f36"}/' \
    "$tmp/shared" >"$tmp/shared-writer"
check verify-shared-writer 1 "$audit" verify shared-writer

# Server 3202 killed in the middle of writing its record: the part it
# wrote is cut off by the next writer, and a "torn" record says what it
# was.  The other two servers go on.
sed -n '1,9p' "$here/shared.jsonl" >"$tmp/torn-1.jsonl"
sed -n '11,18p' "$here/shared.jsonl" | grep -v '"pid":3202,' \
    >"$tmp/torn-2.jsonl"
mk_with torn "$tmp/torn-1.jsonl"
printf '%s' '{"seq":10,"time":"2026-11-25T09:00:03.021Z","writer":{"pid":3202,"start":"c47d1e8b20a95f13"},"event":"result","call":1,"tool":"list_di' \
    >>"$tmp/torn"
mk_with torn "$tmp/torn-2.jsonl"
check verify-torn 0 "$audit" verify torn
check tail-torn 0 "$audit" tail -n 7 torn

# --- tail and summary ---

check tail-4 0 "$audit" tail -n 4 log
check tail-default 0 "$audit" tail log
tail -n 2 "$tmp/log" >"$tmp/last2"
check_json_tail() {
	(cd "$tmp" && "$audit" tail --json -n 2 log) >"$tmp/out" 2>"$tmp/err"
	if [ $? -eq 0 ] && cmp -s "$tmp/out" "$tmp/last2"; then
		ok "tail --json: the last lines as they are"
	else
		diff -u "$tmp/last2" "$tmp/out" >"$tmp/why" 2>&1
		not_ok "tail --json: the last lines as they are"
	fi
}
check_json_tail
head -n 4 "$tmp/notjson" >"$tmp/short"
check tail-notjson 0 "$audit" tail -n 2 short

check summary 0 "$audit" summary log
check summary.json 0 "$audit" summary --json log
check summary-since 0 "$audit" summary --since 2026-11-24 log
check summary-until 0 "$audit" summary --until 2026-11-24 log
check summary-range.json 0 "$audit" summary --json \
    --since 2026-11-23T10:00:03Z --until 2026-11-23T11:00:36.950+01:00 log
check summary.json 0 "$audit" summary --json rlog.3 rlog.2 rlog.1 rlog

# Twelve results: the ten slowest are shown.
i=1
while [ $i -le 12 ]; do
	printf '{"time":"2026-11-25T10:00:%02d.000Z","event":"result",' "$i"
	printf '"call":%d,"tool":"t%d","outcome":"ok","duration_ms":%d}\n' \
	    "$i" "$i" $((i * 10))
	i=$((i + 1))
done >"$tmp/twelve.jsonl"
if (cd "$tmp" && "$mklog" twelve <twelve.jsonl) >"$tmp/why" 2>&1; then
	ok "audit-mklog twelve"
else
	not_ok "audit-mklog twelve"
fi
check summary-top10 0 "$audit" summary twelve

# Twelve paths named by fifteen calls: the ten most named are shown.
i=1
for k in 1 1 1 2 2 3 4 5 6 7 8 9 10 11 12; do
	d='"run"'
	[ "$k" -eq 2 ] && d='"denied","by":"policy"'
	printf '{"time":"2026-11-25T11:00:%02d.000Z","event":"call",' "$i"
	printf '"call":%d,"tool":"read_text_file","args":{"path":"p%d"},' \
	    "$i" "$k"
	printf '"paths":[{"root":"/r","path":"p%d"}],"decision":%s}\n' \
	    "$k" "$d"
	i=$((i + 1))
done >"$tmp/paths.jsonl"
if (cd "$tmp" && "$mklog" paths <paths.jsonl) >"$tmp/why" 2>&1; then
	ok "audit-mklog paths"
else
	not_ok "audit-mklog paths"
fi
check summary-paths 0 "$audit" summary paths
check tail-paths 0 "$audit" tail -n 2 paths

# A tool's name longer than tail's line: tail shows its start, marked,
# and the rest of the line (before, the name was left out).
long=$(printf '%05000d' 0 | tr 0 n)
printf '{"time":"2026-11-25T12:00:00.000Z","event":"call","call":1,"tool":"%s",%s\n' \
    "$long" '"decision":"denied","by":"validation","reason":"unknown tool"}' \
    >"$tmp/longname.jsonl"
if (cd "$tmp" && "$mklog" longname <longname.jsonl) >"$tmp/why" 2>&1; then
	ok "audit-mklog longname"
else
	not_ok "audit-mklog longname"
fi
check tail-longname 0 "$audit" tail longname

# --- Usage and I/O errors ---

check_err usage-verify 2 "$audit" verify
check_err usage-command 2 "$audit" frobnicate
check_err usage-none 2 "$audit"
check_err usage-option-top 2 "$audit" -x
check_err usage-option 2 "$audit" verify --frob log
check_err usage-value 2 "$audit" summary log --since
check_err usage-novalue 2 "$audit" tail --json=1 log
check_err missing-file 2 "$audit" verify no-such-log
check_err bad-since 2 "$audit" summary --since yesterday log
check_err bad-count 2 "$audit" tail -n -1 log
chmod 640 "$tmp/other.key"
check_err key-open 2 "$audit" verify --key other.key klog

# --- Help and version, on stdout ---

for h in --help -h help "verify --help" "tail -h" "summary --help"; do
	# shellcheck disable=SC2086  # $h is a command and its option
	check help 0 "$audit" $h
done
# Every option the help explains is in the man page's SYNOPSIS or list.
man=$top/audit/toolcell-audit.1
for o in $(grep -o -- '--[a-z][a-z-]*' "$here/expect/help" | sort -u); do
	if grep -q -- "Fl -${o#--}\>" "$man"; then
		ok "toolcell-audit(1) names $o"
	else
		echo "no 'Fl $o' in $man" >"$tmp/why"
		not_ok "toolcell-audit(1) names $o"
	fi
done
for v in --version -V; do
	(cd "$tmp" && "$audit" $v) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] &&
	    grep -qx 'toolcell-audit [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*' \
	    "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then
		ok "$v"
	else
		{ echo "exit status $rc"; cat "$tmp/out" "$tmp/err"; } \
		    >"$tmp/why"
		not_ok "$v"
	fi
done

# verify --json names the file where it found a problem: a name that is
# not UTF-8 (any bytes may name a file) is printed with U+FFFD, so the
# output is still JSON.
bad=$(printf 'log-\377\376')
cp "$tmp/altered" "$tmp/$bad"
(cd "$tmp" && "$audit" verify --json "$bad") >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && node -e '
	const t = require("fs").readFileSync(process.argv[1]);
	const s = new TextDecoder("utf-8", { fatal: true }).decode(t);
	const o = JSON.parse(s);
	if (!JSON.stringify(o).includes("log-\ufffd\ufffd")) process.exit(1);
' "$tmp/out" 2>"$tmp/why"; then
	ok "verify --json: a file name that is not UTF-8 is printed as JSON"
else
	{ echo "exit status $rc"; cat "$tmp/out" "$tmp/err"; } >>"$tmp/why"
	not_ok "verify --json: a file name that is not UTF-8 is printed as JSON"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
