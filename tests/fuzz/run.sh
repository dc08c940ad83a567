#!/bin/sh
# tests/fuzz/run.sh: runs the libFuzzer harnesses that make fuzz built:
#
#	sh tests/fuzz/run.sh FUZZ_BUILD SECONDS NAME...
#
# Each harness FUZZ_BUILD/fuzz/fuzz-NAME runs for SECONDS in one process,
# with its dictionary tests/fuzz/NAME.dict, reading its corpus
# tests/fuzz/corpus/NAME and writing what it finds new to
# FUZZ_BUILD/corpus/NAME, out of the tree.  With FUZZ_KEEP=1, the inputs
# that add coverage are merged into the tree's corpus afterwards.  A crash
# or a failed oracle leaves its input in FUZZ_BUILD/artifacts/, and the
# status is non-zero.  A corpus file that fails already (a finding not yet
# fixed) is named, counted as a failure, and left out of the run, which
# would otherwise stop at it.  The last lines say, for each harness, the
# executions, coverage (cov, ft) and corpus size libFuzzer reported.
set -u

[ $# -ge 3 ] || { echo "usage: run.sh FUZZ_BUILD SECONDS NAME..." >&2; exit 2; }
fb=$1
secs=$2
shift 2
cd "$(dirname "$0")/../.." || exit 1

failed=0
summary=
for name in "$@"; do
	bin=$fb/fuzz/fuzz-$name
	out=$fb/corpus/$name
	log=$fb/fuzz-$name.log
	seed=$fb/seed/$name
	mkdir -p "$out" "$fb/artifacts"
	rm -rf "$seed"
	mkdir -p "$seed"
	echo "# --- fuzz-$name: $secs s"
	for f in tests/fuzz/corpus/"$name"/*; do
		if "$bin" "$f" >/dev/null 2>&1; then
			cp "$f" "$seed/"
		else
			echo "# fuzz-$name: FAILS on $f (left out of the run)"
			failed=$((failed + 1))
		fi
	done
	"$bin" -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
	    -dict="tests/fuzz/$name.dict" \
	    -artifact_prefix="$fb/artifacts/$name-" \
	    "$out" "$seed" >"$log" 2>&1
	rc=$?
	grep -aE '^#[0-9]+.*(INITED|DONE)|^(INFO: -max_total|==[0-9]+==ERROR|SUMMARY|fuzz: )|stat::number_of_executed_units' \
	    "$log"
	last=$(grep -aE '^#[0-9]+' "$log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "# fuzz-$name: FAILED (status $rc): see $log and" \
		    "$fb/artifacts/"
		failed=$((failed + 1))
	elif [ "${FUZZ_KEEP:-0}" = 1 ]; then
		"$bin" -merge=1 "tests/fuzz/corpus/$name" "$out" \
		    >>"$log" 2>&1 || failed=$((failed + 1))
		echo "# fuzz-$name: merged into tests/fuzz/corpus/$name"
	fi
	summary="$summary
fuzz-$name: $last"
done
echo "# --- summary ($secs s each)$summary"
[ "$failed" -eq 0 ]
