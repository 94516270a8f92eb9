#!/usr/bin/env bash
# expect_error.sh REGEX CMD...: passes when CMD exits non-zero, not by a signal, its stderr
# holds exactly one line of the form "<program>: error...: ..." matching REGEX, and no
# sanitizer report: an ASan/UBSan/LSan/TSan report also exits non-zero, so without this an
# error path that leaks or reads freed memory would pass as "refused".
set -u
regex=$1
shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
rc=$?
lines=$(grep -aE '^[a-z_]+: error' "$err")
count=$(printf '%s' "$lines" | grep -c . || true)
sanitizer='ERROR: (Address|Leak|Thread|Memory|UndefinedBehavior)Sanitizer|WARNING: ThreadSanitizer|runtime error: |SUMMARY: [A-Za-z]+Sanitizer'
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit status 0, expected an error"; cat "$err"; rm -f "$err"; exit 1
fi
if grep -aEq "$sanitizer" "$err"; then
  echo "FAIL: a sanitizer reported on the error path (exit $rc)"; cat "$err"; rm -f "$err"; exit 1
fi
if [ "$rc" -ge 128 ]; then
  echo "FAIL: killed by signal $((rc - 128)), expected an orderly error exit"; cat "$err"; rm -f "$err"; exit 1
fi
if [ "$count" -ne 1 ]; then
  echo "FAIL: expected exactly one error line, got $count"; cat "$err"; rm -f "$err"; exit 1
fi
if ! printf '%s\n' "$lines" | grep -Eq -- "$regex"; then
  echo "FAIL: error line does not match /$regex/: $lines"; rm -f "$err"; exit 1
fi
echo "ok (exit $rc): $lines"
rm -f "$err"
