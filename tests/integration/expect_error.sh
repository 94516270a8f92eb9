#!/usr/bin/env bash
# expect_error.sh REGEX CMD...: passes when CMD exits non-zero and its stderr holds exactly
# one line of the form "<program>: error...: ..." and that line matches REGEX.
set -u
regex=$1
shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
rc=$?
lines=$(grep -E '^[a-z_]+: error' "$err")
count=$(printf '%s' "$lines" | grep -c . || true)
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit status 0, expected an error"; cat "$err"; rm -f "$err"; exit 1
fi
if [ "$count" -ne 1 ]; then
  echo "FAIL: expected exactly one error line, got $count"; cat "$err"; rm -f "$err"; exit 1
fi
if ! printf '%s\n' "$lines" | grep -Eq -- "$regex"; then
  echo "FAIL: error line does not match /$regex/: $lines"; rm -f "$err"; exit 1
fi
echo "ok (exit $rc): $lines"
rm -f "$err"
