#!/usr/bin/env bash
# Usage: expect_failure.sh EXIT_CODE EXPECTED_STDERR_LINE -- COMMAND...
# Passes when COMMAND exits with EXIT_CODE and its standard error is exactly EXPECTED_STDERR_LINE (one line), or, when
# EXPECTED_STDERR_LINE starts with '~', contains the rest of it.
set -u
want_code=$1; want_line=$2; shift 3
stderr=$("$@" 2>&1 >/dev/null)
code=$?
if [ "$code" -ne "$want_code" ]; then
  echo "expected exit $want_code, got $code; stderr: $stderr"; exit 1
fi
if [ "${want_line:0:1}" = "~" ]; then
  case "$stderr" in *"${want_line:1}"*) ;; *) printf 'expected stderr containing:\n  %s\ngot:\n  %s\n' "${want_line:1}" "$stderr"; exit 1 ;; esac
elif [ "$stderr" != "$want_line" ]; then
  printf 'expected stderr:\n  %s\ngot:\n  %s\n' "$want_line" "$stderr"; exit 1
fi
echo "ok: exit $code: $stderr"
