#!/bin/sh
# lint.sh: the checks behind 'make lint'.  Banned calls and man page errors
# fail; clang-format differences are listed but do not (the code is KNF,
# which clang-format approximates).
set -u
rc=0

# Unsafe or stdout-writing calls have no place in common/ or servers/: the
# server's stdout carries MCP messages only, written by protocol.c.  The
# unsafe ones are banned from toolcell-audit (audit/) too.
banned='\b(sprintf|vsprintf|strcpy|strcat|atoi|atol|strtok|sscanf|gets|system|popen)\s*\('
if grep -nE "$banned" common/*/*.c servers/*/*.c audit/*.c; then
	echo "lint: banned calls above" >&2
	rc=1
fi
stdout='\b(printf|puts|putchar|vprintf)\s*\(|fprintf\s*\(\s*stdout|fwrite\s*\([^;]*stdout'
if grep -nE "$stdout" common/*/*.c servers/*/*.c | grep -v '^common/protocol/protocol\.c:'; then
	echo "lint: writes to stdout outside common/protocol/protocol.c above" >&2
	rc=1
fi

# A diagnostic's code is a named TC_E* code: a bare -1 is TC_ENOMEM's
# number, and a reader cannot tell "out of memory" from "failed".
if grep -nE '\btc_diag(_errno)?\([^,]*,[[:space:]]*-1[[:space:]]*,' \
    common/*/*.c servers/*/*.c audit/*.c tests/hostile/*.c; then
	echo "lint: tc_diag() with -1 above: name the TC_E* code" >&2
	rc=1
fi

if command -v mandoc >/dev/null 2>&1; then
	for m in servers/*/*.1 servers/*/*.5 audit/*.1; do
		mandoc -Tlint -Wwarning "$m" 2>&1 | grep -v 'mandoc.db' && rc=1
	done
else
	echo "lint: mandoc not installed; man pages not checked" >&2
fi

if command -v clang-format >/dev/null 2>&1 && [ -f .clang-format ]; then
	n=$(clang-format --dry-run common/*/*.[ch] servers/*/*.[ch] 2>&1 |
	    grep -c 'warning:')
	echo "lint: clang-format would change $n lines (not an error)"
fi
[ $rc -eq 0 ] && echo "lint: ok"
exit $rc
