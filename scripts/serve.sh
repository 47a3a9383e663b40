#!/usr/bin/env bash
# Builds the explainer page (scripts/build_web.sh: installs the wasm32 target, wasm-bindgen-cli and
# wasm-opt into target/tools/ when missing) and serves dist/ on http://127.0.0.1:${PORT:-8080}/
# (Ctrl-C to stop). The CLI is a separate build: cargo build --release (target/release/bertscope).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_web.sh
echo "Serving dist/ on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec python3 -m http.server "${PORT:-8080}" --bind 127.0.0.1 --directory dist
