#!/bin/bash
# Build the settings fuzzer with clang (libFuzzer, ASan, UBSan) and run it
# for FUZZ_TIME seconds (default 60) over the seed corpus.
# Usage: test/fuzz/run.sh BUILD-DIR      (FUZZ_TIME=3600 for a longer run)
# New inputs go to BUILD-DIR/corpus; a crash leaves BUILD-DIR/crash-*.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run.sh BUILD-DIR}
time=${FUZZ_TIME:-60}
mkdir -p "$out/corpus"
out=$(cd "$out" && pwd)

clang -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$src/include" -I"$src/lib" -I"$src/arch" \
	"$src/test/fuzz/fuzz_settings.c" "$src"/lib/settings*.c \
	"$src/lib/detect.c" \
	-o "$out/fuzz_settings"

cd "$out"
# stderr of the target (the library's warnings) is closed: -close_fd_mask=2
rc=0
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	./fuzz_settings -max_total_time="$time" -close_fd_mask=2 \
	-print_final_stats=1 -max_len=70000 -timeout=10 \
	corpus "$src/test/fuzz/corpus" >fuzz.log 2>&1 || rc=$?
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss)|ERROR|SUMMARY|Test unit' fuzz.log || true
[ $rc -eq 0 ] || tail -40 fuzz.log
echo "fuzz: $(find corpus -type f | wc -l) inputs in the corpus; exit $rc"
exit "$rc"
