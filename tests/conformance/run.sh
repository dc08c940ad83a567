#!/bin/sh
# run.sh: the official MCP tools, run against toolcell's three servers
# (make conformance; docs/testing.md "The official conformance suite").
#
#	sh tests/conformance/run.sh BUILD
#
# For each server, on a policy of its own over a new scratch directory:
#
#  1. @modelcontextprotocol/conformance (pinned by package-lock.json),
#     every active server scenario, through stdio-http-bridge.mjs (the
#     suite speaks only Streamable HTTP).  The scenarios that test the
#     suite's own fixture server, or capabilities toolcell does not
#     declare, are listed in SERVER.yml; the suite fails the run on any
#     other failure and on a listed scenario that passes.  Each listed
#     scenario must also have failed only as such a call does here: an
#     unknown tool (-32602), a method the server does not offer (-32601),
#     a resource it does not serve (-32002).
#  2. @modelcontextprotocol/inspector's CLI, tools/list --strict: its lint
#     of the tool schemas for what some clients cannot take.  Any error or
#     warning fails the run.
#
# Needs the packages of tests/conformance (npm ci there; make conformance
# does it), which bring their own Node 22.  Each scenario's checks are
# kept in BUILD/conformance/SERVER/*/checks.json.  Exits non-zero if
# anything failed.
set -u
BUILD=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$repo/$BUILD ;; esac
PATH=$here/node_modules/.bin:$PATH
export PATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-conformance.XXXXXX") || exit 2
bridge=
trap '[ -z "$bridge" ] || kill "$bridge" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$tmp/data" "$tmp/w" "$tmp/db" || exit 2
echo hello >"$tmp/data/a.txt"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript("create table t(a integer primary key, b text); insert into t values (1, \"x\");"); c.close()' \
    "$tmp/db/t.db" || exit 2
printf 'allow read %s\nallow write %s\n' "$tmp/data" "$tmp/w" >"$tmp/fs.policy"
printf 'allow read %s\n\n[shell]\nprogram /bin/echo\n' "$tmp/data" \
    >"$tmp/shell.policy"
printf '[sqlite]\ndatabase t %s read-write\n' "$tmp/db/t.db" \
    >"$tmp/sqlite.policy"
chmod 600 "$tmp"/*.policy

failed=0

# Runs the suite against server $1 through a new bridge.
suite() {
	n=$1
	out=$BUILD/conformance/$n
	rm -rf "$out"
	: >"$tmp/bridge.log"
	node "$here/stdio-http-bridge.mjs" 0 -- "$BUILD/toolcell-$n" \
	    --policy "$tmp/$n.policy" 2>"$tmp/bridge.log" &
	bridge=$!
	url=
	for _ in $(seq 100); do
		url=$(sed -n 's/^stdio-http-bridge: listening on //p' \
		    "$tmp/bridge.log")
		[ -n "$url" ] && break
		sleep 0.1
	done
	if [ -z "$url" ]; then
		echo "conformance: toolcell-$n: the bridge did not start:"
		cat "$tmp/bridge.log"
		return 1
	fi
	conformance server --url "$url" -o "$out" \
	    --expected-failures "$here/$n.yml" >"$tmp/suite.log" 2>&1
	rc=$?
	kill "$bridge" 2>/dev/null
	wait "$bridge" 2>/dev/null
	bridge=
	sed -n 's/\x1b\[[0-9;]*m//g; s/^\(Total: \|Baseline check\)/suite: \1/p' \
	    "$tmp/suite.log"
	[ "$rc" -eq 0 ] || { cat "$tmp/suite.log"; return 1; }
	# Why the listed scenarios failed: only as expected.
	node - "$out" "$here/$n.yml" <<-'EOF'
	const fs = require('node:fs');
	const path = require('node:path');
	const [dir, yml] = process.argv.slice(2);
	const listed = new Set(fs.readFileSync(yml, 'utf8').split('\n')
	    .map((l) => l.match(/^  - (\S+)$/)?.[1]).filter(Boolean));
	const ok = /^Failed: MCP error (-32601: method not found|-32602: unknown tool '|-32002: resource not found)/;
	let bad = 0, seen = 0;
	for (const d of fs.readdirSync(dir)) {
		const name = d.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
		if (!listed.has(name))
			continue;
		seen++;
		for (const c of JSON.parse(fs.readFileSync(path.join(dir, d, 'checks.json'), 'utf8')))
			if (c.status === 'FAILURE' && !ok.test(c.errorMessage ?? '')) {
				console.log(`conformance: ${name}: failed otherwise than expected: ${c.errorMessage ?? c.description}`);
				bad++;
			}
	}
	if (seen !== listed.size) {
		console.log(`conformance: ${seen} of the ${listed.size} listed scenarios ran`);
		bad++;
	}
	process.exit(bad ? 1 : 0);
	EOF
}

# The inspector's lint of server $1's tool schemas.
lint() {
	n=$1
	mcp-inspector --cli -q --format json --method tools/list --strict -- \
	    "$BUILD/toolcell-$n" --policy "$tmp/$n.policy" \
	    >"$tmp/tools.json" 2>"$tmp/lint.log"
	rc=$?
	grep -v 'EBADENGINE\|^npm warn' "$tmp/lint.log" >"$tmp/lint.out"
	tools=$(node -e 'const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); console.log(r.result.tools.map((t) => t.name).join(" "))' \
	    "$tmp/tools.json" 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ -s "$tmp/lint.out" ] || [ -z "$tools" ]; then
		echo "conformance: toolcell-$n: the inspector's lint failed" \
		    "(exit $rc):"
		cat "$tmp/lint.out"
		return 1
	fi
	echo "inspector --strict: toolcell-$n: no errors, no warnings: $tools"
}

for n in fs shell sqlite; do
	echo "# toolcell-$n"
	suite "$n" || failed=$((failed + 1))
	lint "$n" || failed=$((failed + 1))
done
if [ "$failed" -ne 0 ]; then
	echo "conformance: $failed of 6 runs failed"
	exit 1
fi
echo "conformance: all 6 runs passed"
