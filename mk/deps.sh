#!/bin/sh
# deps.sh: check for what toolcell needs and, as root, install what is
# missing with apt-get; otherwise stop with the exact command to run.
#
#   deps.sh build "PKGS" [NAME:"PKGS"]...
#                          print make variables for the pkg-config packages:
#                          PKG_CFLAGS for all of them, PKG_LIBS for the
#                          first list (common/, linked by every binary),
#                          PKG_LIBS_NAME for server NAME's own
#   deps.sh node           make sure node (NODE_MAJOR or later), npm and jq
#                          (for the tests) are here
#   deps.sh fuzz [CC]      make sure clang (or CC) links libFuzzer harnesses,
#                          for make fuzz only
#   deps.sh bench          make sure python3, make and g++ are here: npm
#                          compiles the SQLite anchors' native modules with
#                          node-gyp (bench/sqlite-anchors), for make bench only
set -eu

# The oldest Node.js the tests run on.  Debian 12 ships 18: there the
# npm package "node", which carries the official binary, brings this one.
NODE_MAJOR=20

apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "toolcell: missing: $*" >&2
		echo "toolcell: run: sudo apt-get install -y $*" >&2
		exit 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "toolcell: missing: $* (no apt-get here: install them with your package manager)" >&2
		exit 1
	fi
	echo "toolcell: installing $* with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	# Update the lists only when the first try cannot find a package.
	apt-get install -y -q "$@" </dev/null >&2 ||
	    { apt-get update -q </dev/null >&2 &&
	      apt-get install -y -q "$@" </dev/null >&2; }
}

debname() {
	case $1 in
	libseccomp)	echo libseccomp-dev ;;
	libcap)		echo libcap-dev ;;
	libcjson)	echo libcjson-dev ;;
	sqlite3)	echo libsqlite3-dev ;;
	nettle)		echo nettle-dev ;;
	libpcre2-8)	echo libpcre2-dev ;;
	*)		echo "$1" ;;
	esac
}

# The major version of the node on PATH (0 if none answers).
node_major() {
	v=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || v=0
	case $v in
	''|*[!0-9]*)	echo 0 ;;
	*)		echo "$v" ;;
	esac
}

# The major version of the nodejs package apt would install (0 if none).
apt_node_major() {
	v=$(apt-cache policy nodejs 2>/dev/null |
	    sed -n 's/^ *Candidate: *\([0-9]*\).*/\1/p')
	echo "${v:-0}"
}

# Brings a node of NODE_MAJOR or later: Debian's nodejs when its version
# is one, else npm's "node" package, installed globally (on Debian,
# beneath /usr/local, whose bin comes before /usr/bin on PATH).
newer_node() {
	have=$(node --version 2>/dev/null || echo none)
	if [ "$(id -u)" -ne 0 ]; then
		echo "toolcell: the tests need Node.js $NODE_MAJOR or later;" \
		    "this is $have" >&2
		echo "toolcell: run: sudo npm install -g node@$NODE_MAJOR" \
		    "(or install a newer nodejs)" >&2
		exit 1
	fi
	if command -v apt-get >/dev/null 2>&1 &&
	    [ "$(apt_node_major)" -ge "$NODE_MAJOR" ]; then
		apt_install nodejs
	else
		echo "toolcell: Node.js $have is older than $NODE_MAJOR:" \
		    "installing npm's node@$NODE_MAJOR" >&2
		npm install -g --no-fund --no-audit "node@$NODE_MAJOR" \
		    </dev/null >&2
	fi
	hash -r 2>/dev/null || true
	if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
		echo "toolcell: node on PATH is still $(node --version);" \
		    "put $(npm prefix -g)/bin before $(dirname \
		    "$(command -v node)") on PATH" >&2
		exit 1
	fi
}

# Returns 0 if compiler $1 links a program with -fsanitize=fuzzer.
fuzz_links() {
	dir=$(mktemp -d "${TMPDIR:-/tmp}/toolcell-deps.XXXXXX") || return 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
	    '{ (void)d; (void)n; return 0; }' >"$dir/t.c"
	"$1" -fsanitize=fuzzer,address,undefined -o "$dir/t" "$dir/t.c" \
	    >/dev/null 2>&1
	rc=$?
	rm -rf "$dir"
	return $rc
}

case ${1:-} in
build)
	common=$2
	shift 2
	all=$common
	for s in "$@"; do
		all="$all ${s#*:}"
	done
	missing=
	command -v pkg-config >/dev/null 2>&1 || missing=pkg-config
	command -v cc >/dev/null 2>&1 || missing="$missing gcc make"
	for p in $all; do
		pkg-config --exists "$p" 2>/dev/null ||
		    missing="$missing $(debname "$p")"
	done
	# shellcheck disable=SC2086
	[ -z "$missing" ] || apt_install $missing
	# shellcheck disable=SC2086
	echo "PKG_CFLAGS = $(pkg-config --cflags $all)"
	# shellcheck disable=SC2086
	echo "PKG_LIBS = $(pkg-config --libs $common)"
	for s in "$@"; do
		# shellcheck disable=SC2086
		[ -z "${s#*:}" ] ||
		    echo "PKG_LIBS_${s%%:*} = $(pkg-config --libs ${s#*:})"
	done
	;;
node)
	missing=
	command -v node >/dev/null 2>&1 || missing=nodejs
	command -v npm >/dev/null 2>&1 || missing="$missing npm"
	command -v jq >/dev/null 2>&1 || missing="$missing jq"
	# shellcheck disable=SC2086
	[ -z "$missing" ] || apt_install $missing
	[ "$(node_major)" -ge "$NODE_MAJOR" ] || newer_node
	;;
fuzz)
	cc=${2:-clang}
	if ! command -v "$cc" >/dev/null 2>&1; then
		[ "$cc" = clang ] || { echo "toolcell: no $cc" >&2; exit 1; }
		apt_install clang
	fi
	# The runtime comes apart from the compiler on Debian:
	# libclang-rt-N-dev, N the compiler's major version.
	if ! fuzz_links "$cc"; then
		if "$cc" --version 2>/dev/null | grep -q clang; then
			major=$("$cc" -dumpversion | cut -d. -f1)
			apt_install "libclang-rt-$major-dev"
		fi
		fuzz_links "$cc" || {
			echo "toolcell: $cc cannot link a libFuzzer harness" \
			    "(make fuzz needs clang)" >&2
			exit 1
		}
	fi
	;;
bench)
	missing=
	for c in python3 make g++; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	# shellcheck disable=SC2086
	[ -z "$missing" ] || apt_install $missing
	;;
*)
	echo "usage: deps.sh build PKGS [NAME:PKGS]... | node | fuzz [CC] | bench" >&2
	exit 2
	;;
esac
