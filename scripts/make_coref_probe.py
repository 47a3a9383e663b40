#!/usr/bin/env python3
"""The coreference probe's sentences (www/datasets/coref/): a pronoun, its antecedent and a
distractor noun, told apart by gender or number ("the boy told the girl that he was late":
he -> boy, distractor girl). Every template with the antecedent first and second, he / she, and
they with a plural antecedent. Deterministic (no randomness): the same file on every run.

Each line: {"text", "pronoun": [start, end], "antecedent": [start, end], "distractor": [start, end]}
(character offsets of the words). dev.jsonl (6 templates x 6 noun pairs) picks the best head;
test.jsonl reports it: every sentence with a held-out template or a held-out noun pair.
Usage: python3 scripts/make_coref_probe.py
"""
import json, os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (verb phrase before B, linker, predicate singular, predicate plural)
TEMPLATES = [
    ("told the {B} that", "{p} {was} late."),
    ("called the {B} because", "{p} {was} lost."),
    ("thanked the {B} after", "{p} {had} finished the work."),
    ("met the {B} when", "{p} {was} in town."),
    ("waited for the {B} while", "{p} {was} eating lunch."),
    ("smiled at the {B} because", "{p} {was} happy."),
    # held out
    ("wrote to the {B} because", "{p} {was} far away."),
    ("visited the {B} when", "{p} {was} sick."),
]
MALE = ["boy", "man", "king", "father", "brother", "uncle", "prince", "son"]
FEMALE = ["girl", "woman", "queen", "mother", "sister", "aunt", "princess", "daughter"]
PLURAL = {"boy": "boys", "man": "men", "king": "kings", "father": "fathers", "brother": "brothers", "uncle": "uncles",
          "prince": "princes", "son": "sons", "girl": "girls", "woman": "women", "queen": "queens", "mother": "mothers",
          "sister": "sisters", "aunt": "aunts", "princess": "princesses", "daughter": "daughters"}
DEV_TEMPLATES, DEV_PAIRS = 6, 6  # templates 0-5 with noun pairs 0-5 are dev; the rest held out


def sentence(tpl, a, b, pron, verb_sg):
    """'the A <tpl with B> <pron> <verb> ...': text and the offsets of A, B and the pronoun."""
    head, tail = tpl
    text = "the " + a + " " + head.format(B=b) + " "
    a_span = (4, 4 + len(a))
    b_start = text.index(" the " + b + " ", a_span[1]) + 5
    b_span = (b_start, b_start + len(b))
    p_start = len(text)
    plural = pron == "they"
    verb = {"was": "were", "had": "had"}[verb_sg] if plural else verb_sg
    text += tail.format(p=pron, was=verb, had=verb)
    return text, (p_start, p_start + len(pron)), a_span, b_span


def items():
    out = []
    for ti, tpl in enumerate(TEMPLATES):
        verb = "had" if "{had}" in tpl[1] else "was"
        for pi, (m, f) in enumerate(zip(MALE, FEMALE)):
            split = "dev" if ti < DEV_TEMPLATES and pi < DEV_PAIRS else "test"
            cases = [
                (m, f, "he", "first"), (f, m, "he", "second"),      # he -> the man, first or second
                (f, m, "she", "first"), (m, f, "she", "second"),    # she -> the woman
                (PLURAL[m], f, "they", "first"), (f, PLURAL[m], "they", "second"),  # they -> the plural
            ]
            for a, b, pron, which in cases:
                text, p, sa, sb = sentence(tpl, a, b, pron, verb)
                ante, dist = (sa, sb) if which == "first" else (sb, sa)
                out.append(dict(text=text, pronoun=list(p), antecedent=list(ante), distractor=list(dist), split=split))
    return out


def main():
    all_items = items()
    for split in ("dev", "test"):
        rows = [{k: v for k, v in it.items() if k != "split"} for it in all_items if it["split"] == split]
        with open(os.path.join(ROOT, f"www/datasets/coref/{split}.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        print(split, len(rows))


if __name__ == "__main__":
    main()
