#!/usr/bin/env bash
# Builds bertscope and serves the page on http://127.0.0.1:${PORT:-8080}/.
# The explainer page is not built yet: this serves www/ (a placeholder page and the default model)
# and builds the `bertscope` CLI, which is what works today.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
echo "CLI built: target/release/bertscope (try: target/release/bertscope fill --model www/models/default --text 'the capital of france is [MASK].')"
echo "Serving www/ on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C to stop)"
exec python3 -m http.server "${PORT:-8080}" --bind 127.0.0.1 --directory www
