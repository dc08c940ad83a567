#!/bin/sh
# deps.sh: check for what toolcell needs and, as root, install what is
# missing with apt-get; otherwise stop with the exact command to run.
#
#   deps.sh build "PKGS" [NAME:"PKGS"]...
#                          print make variables for the pkg-config packages:
#                          PKG_CFLAGS for all of them, PKG_LIBS for the
#                          first list (common/, linked by every binary),
#                          PKG_LIBS_NAME for server NAME's own
#   deps.sh node           make sure node, npm and jq (for the tests) are here
#   deps.sh fuzz [CC]      make sure clang (or CC) links libFuzzer harnesses,
#                          for make fuzz only
#   deps.sh bench          make sure python3, make and g++ are here: npm
#                          compiles the SQLite anchors' native modules with
#                          node-gyp (bench/sqlite-anchors), for make bench only
set -eu

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
