"""Plain-text corpus from WordNet 3.0 (Debian package `wordnet-base`, WordNet licence: free to
use, copy, modify and distribute with the copyright notice; Princeton University).

For every synset: its usage examples as sentences, and "<lemma> means <definition>." Synsets are
grouped 40 to a document (documents separated by blank lines), in the order of the data files.
Usage: python3 scripts/make_wordnet_corpus.py [--wordnet /usr/share/wordnet] [--out target/corpora/wordnet.txt]
"""
import argparse
import re
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("--wordnet", default="/usr/share/wordnet")
ap.add_argument("--out", default="target/corpora/wordnet.txt")
a = ap.parse_args()

docs, cur = [], []
for pos in ["noun", "verb", "adj", "adv"]:
    for line in (Path(a.wordnet) / f"data.{pos}").read_text(encoding="latin-1").splitlines():
        if line.startswith("  ") or "|" not in line:
            continue  # licence header
        head, gloss = line.split("|", 1)
        fields = head.split()
        lemma = fields[4].replace("_", " ")
        lemma = re.sub(r"\(.*?\)$", "", lemma)  # adjective markers such as (a)
        parts = [p.strip() for p in gloss.split(";") if p.strip()]
        sents = []
        for p in parts:
            if p.startswith('"'):
                ex = p.strip('"').strip()
                if len(ex.split()) >= 3:
                    sents.append(ex[0].upper() + ex[1:] + ("" if ex[-1] in ".!?" else "."))
        definition = next((p for p in parts if not p.startswith('"')), None)
        if definition:
            sents.append(f"{lemma[0].upper() + lemma[1:]} means {definition}.")
        cur.extend(sents)
        if len(cur) >= 40:
            docs.append(cur)
            cur = []
if cur:
    docs.append(cur)
Path(a.out).parent.mkdir(parents=True, exist_ok=True)
Path(a.out).write_text("\n\n".join("\n".join(d) for d in docs) + "\n", encoding="utf-8")
words = sum(len(s.split()) for d in docs for s in d)
print(f"{a.out}: {len(docs)} documents, {sum(map(len, docs))} sentences, {words} words")
