#!/bin/sh
# The tree's size limits (docs/design.md): no file in lib/ or arch/ over
# 600 lines, no C function anywhere over 150.  Functions are found as the
# kernel style writes them: a body from a "{" alone at the start of a line
# to the next "}" at the start of a line.  The limits can be lowered
# (SIZES_FILE_MAX, SIZES_FUNCTION_MAX) to see the test fail.
set -eu
src=${top_srcdir:-$(dirname "$0")/..}
file_max=${SIZES_FILE_MAX:-600}
function_max=${SIZES_FUNCTION_MAX:-150}
fail=0

cd "$src"
for f in $(find lib arch -name '*.[chS]' | sort); do
	n=$(wc -l <"$f")
	if [ "$n" -gt "$file_max" ]; then
		echo "sizes.sh: $f has $n lines (at most $file_max in lib/ and arch/)"
		fail=1
	fi
done

long=$(find lib arch tools test -name '*.[ch]' | sort | xargs awk -v max="$function_max" '
	FNR == 1 { body = 0 }
	/^[A-Za-z_].*\(/ { name = $0 }
	/^\{/ { body = 1; start = FNR; next }
	/^\}/ && body {
		if (FNR - start - 1 > max)
			printf "%s:%d: %d lines: %s\n", FILENAME, start,
			       FNR - start - 1, name
		body = 0
	}')
if [ -n "$long" ]; then
	echo "sizes.sh: functions over $function_max lines:"
	echo "$long"
	fail=1
fi
[ $fail = 0 ] && echo "sizes.sh: files and functions within their limits"
exit $fail
