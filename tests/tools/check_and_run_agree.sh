#!/usr/bin/env bash
# Usage: check_and_run_agree.sh PROGRAM SOURCE_DIR
# Runs check_run_agreement (tests/tools/check_run_agreement.cpp) on the shipped scenarios, which must run, and on the
# scenario fuzzer's kept corpus: its seeds and reproducers, and the minimized inputs in scenario.tar.gz.
set -eu
program=$1; source_dir=$2
kept=$(mktemp -d)
trap 'rm -rf "$kept"' EXIT
tar -xzf "$source_dir/tests/fuzz/corpus/scenario.tar.gz" -C "$kept"
"$program" "$source_dir"/scenarios/*.json "$source_dir"/scenarios/traces/replay-*.json \
  -- "$source_dir/tests/fuzz/corpus/scenario" "$kept"
