#!/usr/bin/env bash
# Builds the explainer page (scripts/build_web.sh: installs trunk, wasm-bindgen-cli and wasm-opt into
# target/tools/ when missing) and the `bertscope` CLI, then serves dist/ on
# http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_web.sh
cargo build --release --locked
echo "CLI built: target/release/bertscope (try: target/release/bertscope fill --model www/models/default --text 'the capital of france is [MASK].')"
echo "Serving dist/ on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec python3 -m http.server "${PORT:-8080}" --bind 127.0.0.1 --directory dist
