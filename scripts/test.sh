#!/usr/bin/env bash
# Runs every test bertscope has: unit, gradient checks, PyTorch parity, tokenizer parity, CLI.
# Needs only the Rust toolchain (fixtures are committed; torch is not needed).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo test --locked 2>&1 | tee target-test.log
# The summary line CI reads: total passed/failed over every test binary.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "%d passed, %d failed\n", p, f; exit (f > 0) }' target-test.log
rm -f target-test.log
