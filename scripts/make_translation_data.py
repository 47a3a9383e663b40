#!/usr/bin/env python3
"""Two small parallel corpora for training a tiny encoder-decoder (a BERT encoder and a BERT
decoder with cross-attention), written as JSON lines {"source": "...", "target": "..."}:

numbers/: every number 0..999 written as digits separated by spaces and as English words
("3 1 2" -> "three hundred twelve", "4 0" -> "forty", "0" -> "zero"); no "and", no hyphens.

toy-translate/: simple English sentences and their translation into Zorbish, a made-up and
perfectly regular language. Both sides are lowercase words separated by single spaces, with the
final "." a token of its own. The English comes from a small grammar over hand-picked common
English words (every one also occurs in www/corpora/simple.txt, asserted); the grammar and the
Zorbish lexicon are generated here. Zorbish grammar:

  * clause order subject - object - prepositional phrases - verb (the verb is last); a sentence
    may open with "yesterday" / "today" (kept first) and may join a second verb phrase with "and"
    (the subject shared): S V1 O1 PP1 and V2 O2 PP2 -> S O1 PP1' V1 ko O2 PP2' V2;
  * a noun phrase is determiner - noun - adjectives (the adjectives follow the noun, in the
    English order): "the big red ball" -> "ma vobol fusile purur" (the ball big red);
  * postpositions: "under the big tree" -> "ma mosul fusile bu" (the tree big under);
  * one word per word: every English word has one fixed Zorbish word ("a" and "an" share one),
    no inflection, no plurals, except "bank", which is "ripa" (river bank) when the sentence
    also has river / water / fish / shore, and "kasa" (money bank) when it has money / loan /
    dollars / account / teller. Every sentence with "bank" has cues of exactly one sense, and
    in about half of them every deciding word comes after "bank".

Apart from "ko" (and), "ripa" and "kasa", the Zorbish words are drawn from consonant-vowel
syllables by a seeded generator (one syllable, sometimes closed, for determiners and prepositions;
two or three for the rest), distinct, and never an English word (of the grammar, of
www/corpora/simple.txt, or a number word). 6,600 distinct sentences are generated and a seeded
tenth held out as test.jsonl (scripts/jsonl_sets.py); the numbers hold out a seeded tenth too.
Every word of a test set occurs in its train set (asserted). Fixed seeds and the standard library
only: byte-identical on every run.

    python3 scripts/make_translation_data.py --out www/datasets [--pairs 6600] [--lexicon]
"""

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from jsonl_sets import hold_out_tenth, write_sets  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------------
# numbers

ONES = """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen""".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n):
    """0 <= n <= 999 in English words: 312 -> three hundred twelve."""
    assert 0 <= n <= 999
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    rest = n % 100
    return ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + number_words(rest))


def numbers():
    return [{"source": " ".join(str(n)), "target": number_words(n)} for n in range(1000)]


# ---------------------------------------------------------------------------------------------
# toy-translate: the English side

RIVER_CUES = ["river", "water", "fish", "shore"]
MONEY_CUES = ["money", "loan", "dollars", "account", "teller"]
SENSES = {"ripa": RIVER_CUES, "kasa": MONEY_CUES}

PEOPLE = ["man", "boy", "girl", "farmer", "baby", "friend", "mother", "father", "sister", "brother",
          "teller"]
ANIMALS = ["dog", "cat", "bird", "fish", "horse", "cow", "fox", "frog", "duck", "bear", "rabbit",
           "mouse"]
PORTABLE = ["ball", "book", "bag", "box", "hat", "key", "cup", "kite", "money", "dollars", "apple",
            "cake", "egg", "bread"]
FOOD = ["apple", "cake", "egg", "bread", "fish"]
DRINK = ["water", "milk"]
PLACES = ["river", "shore", "tree", "house", "park", "school", "shop", "farm", "garden", "table",
          "forest", "field", "bank"]
ANIMATE = PEOPLE + ANIMALS
THINGS = PORTABLE + ["loan", "account", "water", "milk", "door"]

# Adjective groups, in English order (size before mood before colour); at most one of each.
SIZE = ["big", "small", "old", "young", "new"]
MOOD = ["happy", "hungry"]
COLOUR = ["red", "green", "blue", "white", "black", "brown"]
MASS = {"money", "dollars", "water", "milk", "bread"}  # no "a" / "an" / "this", no adjectives


def adjective_groups(noun):
    """The adjectives a noun may take, one list per group in English order."""
    if noun in MASS:
        return []
    if noun in ("loan", "account"):
        return [["big", "small", "new", "old"]]
    if noun in ANIMATE:
        return [[a for a in SIZE if a != "new"], MOOD] + ([COLOUR] if noun in ANIMALS else [])
    return [[a for a in SIZE if a != "young"], COLOUR]


# Verbs: (subjects, objects or None, motion verb: takes "to" / "from").
INTRANSITIVE = {
    "slept": (ANIMATE, None, False), "sat": (ANIMATE, None, False), "played": (ANIMATE, None, False),
    "cried": (PEOPLE, None, False), "sang": (PEOPLE + ["bird"], None, False),
    "jumped": (ANIMATE, None, False), "ran": (ANIMATE, None, True),
    "walked": (PEOPLE + ["dog", "cat", "horse", "cow", "fox", "duck", "bear"], None, True),
    "swam": (PEOPLE + ["dog", "fish", "frog", "duck", "bear"], None, True),
    "flew": (["bird", "duck"], None, True), "went": (ANIMATE, None, True), "came": (ANIMATE, None, True),
}
TRANSITIVE = {
    "saw": (ANIMATE, ANIMATE + THINGS + PLACES, False), "liked": (ANIMATE, ANIMATE + THINGS + PLACES, False),
    "found": (ANIMATE, ANIMATE + PORTABLE, False), "wanted": (ANIMATE, ANIMALS + THINGS, False),
    "took": (PEOPLE, PORTABLE + ["loan"], False),
    "threw": (PEOPLE, ["ball", "apple", "egg", "key", "hat", "book"], False),
    "bought": (PEOPLE, [t for t in PORTABLE if t not in ("money", "dollars")] + ["milk"], False),
    "needed": (PEOPLE, PORTABLE + ["loan", "water", "milk"], False),
    "ate": (ANIMATE, FOOD, False), "drank": (ANIMATE, DRINK, False),
    "caught": (ANIMATE, ["ball", "fish", "mouse", "frog", "rabbit", "bird", "kite"], False),
    "opened": (PEOPLE, ["box", "bag", "book", "door", "account"], False),
    "counted": (PEOPLE, ["money", "dollars", "fish"], False),
}
# Prepositions and the nouns they take ("with": a companion or a thing carried).
PREPS = {
    "near": PLACES, "under": ["tree", "table"],
    "behind": ["tree", "house", "school", "shop", "farm", "bank"],
    "at": ["school", "shop", "farm", "park", "house", "river", "bank"],
    "in": ["house", "park", "school", "shop", "garden", "forest", "field", "river", "bank"],
    "on": ["shore", "table", "field", "bank"],
    "to": [p for p in PLACES if p != "table"], "from": [p for p in PLACES if p != "table"],
    "with": ANIMATE + PORTABLE,
}
LOCATIVE = ["near", "under", "behind", "at", "in", "on"]
MOTION = ["to", "from"]
DETS = ["the", "a", "his", "her", "their", "this"]
# Nouns that take his / her / their.
POSSESSED = set(ANIMALS + PORTABLE + ["mother", "father", "sister", "brother", "friend", "baby", "loan",
                                      "account", "water", "milk", "door", "house", "farm", "garden"])
ADVERBS = ["yesterday", "today"]


class Slot:
    """A noun phrase to fill: which nouns it may hold; noun, determiner and adjectives once filled."""

    def __init__(self, nouns):
        self.nouns, self.noun, self.det, self.adjs = sorted(set(nouns)), None, None, []

    def english(self):
        words = self.adjs + [self.noun]
        det = "an" if self.det == "a" and words[0][0] in "aeiou" else self.det
        return [det] + words

    def zorbish(self, lex):
        return [lex[self.det], lex[self.noun]] + [lex[a] for a in self.adjs]


def verb_phrase(rng, verb, table, n_pp):
    """(verb, object slot or None, [(preposition, slot)]) with n_pp prepositional phrases."""
    _, objects, motion = table[verb]
    obj = Slot(objects) if objects else None
    preps = rng.sample(LOCATIVE + (MOTION if motion else []) + ["with"], n_pp)
    preps.sort(key=lambda p: p in LOCATIVE)  # "to the shop near the tree", not the other way
    return verb, obj, [(p, Slot(PREPS[p])) for p in preps]


def clause(rng):
    """A sentence skeleton: (adverb or None, subject slot, [verb phrases])."""
    def pick_verb(exclude=None):
        table = INTRANSITIVE if rng.random() < 0.45 else TRANSITIVE
        verb = rng.choice(sorted(v for v in table if v != exclude))
        return verb, table
    verb, table = pick_verb()
    subject = Slot(table[verb][0])
    n_pp = rng.choices([0, 1, 2], [0.35, 0.45, 0.2])[0]
    phrases = [verb_phrase(rng, verb, table, n_pp)]
    if rng.random() < 0.18:
        verb2, table2 = pick_verb(verb)
        allowed = set(subject.nouns) & set(table2[verb2][0])
        if allowed:
            subject.nouns = sorted(allowed)
            phrases.append(verb_phrase(rng, verb2, table2, rng.choices([0, 1], [0.6, 0.4])[0]))
    adverb = rng.choice(ADVERBS) if rng.random() < 0.15 else None
    return adverb, subject, phrases


def slots_of(skeleton):
    """The noun slots in English order."""
    _, subject, phrases = skeleton
    out = [subject]
    for _, obj, pps in phrases:
        out += ([obj] if obj else []) + [s for _, s in pps]
    return out


def fill(rng, skeleton, sense, cue, want_after):
    """Chooses every slot's noun, determiner and adjectives; False if the skeleton cannot hold the
    requested bank sentence. sense None: no "bank"; else "bank" in one slot and cue (a cue word of
    that sense) in a later (want_after) or earlier slot, the other sense's cues nowhere."""
    slots = slots_of(skeleton)
    banned = {"bank"}
    if sense:
        banned |= set(SENSES["kasa" if sense == "ripa" else "ripa"])
        pairs = [(i, j) for i, b in enumerate(slots) if "bank" in b.nouns
                 for j, c in enumerate(slots) if j != i and (j > i) == want_after and cue in c.nouns]
        if not pairs:
            return False
        i, j = rng.choice(pairs)
        slots[i].noun, slots[j].noun = "bank", cue
    for s in slots:
        if s.noun is None:
            choices = [n for n in s.nouns if n not in banned]
            if not choices:
                return False
            s.noun = rng.choice(choices)
    for s in slots:
        dets = [d for d in DETS if (s.noun in POSSESSED or d not in ("his", "her", "their"))
                and (s.noun not in MASS or d not in ("a", "this"))]
        s.det = rng.choices(dets, [4 if d == "the" else 1 for d in dets])[0]
        s.adjs = []
        for group in adjective_groups(s.noun):
            if rng.random() < 0.22:
                s.adjs.append(rng.choice(group))
    return True


def english(skeleton):
    adverb, subject, phrases = skeleton
    words = ([adverb] if adverb else []) + subject.english()
    for k, (verb, obj, pps) in enumerate(phrases):
        words += (["and"] if k else []) + [verb] + (obj.english() if obj else [])
        for prep, slot in pps:
            words += [prep] + slot.english()
    return words


def zorbish(skeleton, lex, bank):
    adverb, subject, phrases = skeleton
    words = ([lex[adverb]] if adverb else []) + subject.zorbish(lex)
    for k, (verb, obj, pps) in enumerate(phrases):
        words += ([lex["and"]] if k else []) + (obj.zorbish(lex) if obj else [])
        for prep, slot in pps:
            words += slot.zorbish(lex) + [lex[prep]]
        words.append(lex[verb])
    return [bank if w == "<bank>" else w for w in words]


def bank_sense(words):
    """"ripa" / "kasa" from the cue words of an English sentence (None: no cue, or both)."""
    found = {s for s, cues in SENSES.items() if set(words) & set(cues)}
    return found.pop() if len(found) == 1 else None


# ---------------------------------------------------------------------------------------------
# toy-translate: the Zorbish lexicon

FUNCTION_WORDS = DETS + ["an"] + LOCATIVE + MOTION + ["with", "and"]


def english_vocabulary():
    nouns = PEOPLE + ANIMALS + THINGS + PLACES
    verbs = list(INTRANSITIVE) + list(TRANSITIVE)
    return sorted(set(nouns + verbs + SIZE + MOOD + COLOUR + FUNCTION_WORDS + ADVERBS))


def lexicon(avoid):
    """English word -> Zorbish word, deterministic; "bank" -> "<bank>" (ripa / kasa by context).
    No Zorbish word is in avoid (English words) or a number word."""
    rng = random.Random("bertscope-zorbish-lexicon")
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", "klmnrs"
    english = english_vocabulary()
    taken = set(english) | set(avoid) | set(ONES) | set(TENS) | {"hundred", "ripa", "kasa", "ko"}

    def syllable():
        return rng.choice(onsets) + rng.choice(vowels)

    lex = {"and": "ko", "bank": "<bank>", ".": "."}
    for w in english:
        if w in lex or w == "an":
            continue
        while True:
            if w in FUNCTION_WORDS:
                z = syllable() + (rng.choice(codas) if rng.random() < 0.5 else "")
            else:
                z = "".join(syllable() for _ in range(rng.choice([2, 2, 3])))
                z += rng.choice(codas) if rng.random() < 0.3 else ""
            if z not in taken:
                break
        taken.add(z)
        lex[w] = z
    lex["an"] = lex["a"]
    return lex


def translate_pairs(n, lex):
    rng = random.Random("bertscope-toy-translate")
    out, seen = [], set()
    while len(out) < n:
        # a third of the sentences have "bank", half of those a deciding word after it
        sense = rng.choice(["ripa", "kasa"]) if rng.random() < 0.33 else None
        cue = rng.choice(SENSES[sense]) if sense else None  # each cue word as often as the others
        want_after = rng.random() < 0.5
        while True:  # skeletons until one holds the sentence asked for
            skeleton = clause(rng)
            if fill(rng, skeleton, sense, cue, want_after):
                en = english(skeleton)
                source = " ".join(en + ["."])
                if 4 <= len(en) <= 12 and source not in seen:
                    break
        seen.add(source)
        zo = zorbish(skeleton, lex, sense) + ["."]
        assert ("bank" in en) == (sense is not None) and (sense is None or bank_sense(en) == sense), source
        # one Zorbish word per English word, "bank" by its sense
        assert sorted(zo) == sorted(sense if w == "bank" else lex[w] for w in en + ["."]), source
        out.append({"source": source, "target": " ".join(zo)})
    return out


# ---------------------------------------------------------------------------------------------


def simple_words():
    text = (ROOT / "www" / "corpora" / "simple.txt").read_text(encoding="utf-8").lower()
    return set(re.findall(r"[a-z]+", text))


def words(items, side):
    """The distinct words of one side, "." not counted."""
    return {w for x in items for w in x[side].split()} - {"."}


def bank_counts(xs):
    ripa = kasa = after = 0
    for x in xs:
        en = x["source"].split()
        if "bank" not in en:
            continue
        if "ripa" in x["target"].split():
            ripa += 1
        else:
            kasa += 1
        b = en.index("bank")
        cues = SENSES["ripa" if "ripa" in x["target"].split() else "kasa"]
        if not any(w in cues for w in en[:b]):
            after += 1
    return ripa, kasa, after


def translate_count(xs):
    ripa, kasa, after = bank_counts(xs)
    lens = [len(x["source"].split()) - 1 for x in xs]
    return (f"{len(words(xs, 'source'))} / {len(words(xs, 'target'))} distinct source / target words, "
            f"{min(lens)}-{max(lens)} English words and '.', bank: ripa {ripa} / kasa {kasa}, "
            f"{after} with every deciding word after bank")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "www" / "datasets")
    ap.add_argument("--pairs", type=int, default=6600, help="toy-translate pairs, a tenth held out")
    ap.add_argument("--lexicon", action="store_true", help="also print the English -> Zorbish lexicon")
    a = ap.parse_args()

    simple = simple_words()
    missing = [w for w in english_vocabulary() if w not in simple]
    assert not missing, f"not in www/corpora/simple.txt: {missing}"
    lex = lexicon(simple)
    if a.lexicon:
        print(", ".join(f"{w} {'ripa/kasa' if w == 'bank' else lex[w]}" for w in english_vocabulary()))

    test, train = hold_out_tenth(numbers(), "bertscope-numbers")
    assert words(test, "target") <= words(train, "target")
    write_sets(a.out / "numbers", (("train", train), ("test", test)),
               lambda xs: f"{len(words(xs, 'source'))} / {len(words(xs, 'target'))} distinct words")

    test, train = hold_out_tenth(translate_pairs(a.pairs, lex), "bertscope-toy-translate-split")
    assert not {x["source"] for x in test} & {x["source"] for x in train}
    for side in ("source", "target"):
        assert words(test, side) <= words(train, side)
    write_sets(a.out / "toy-translate", (("train", train), ("test", test)), translate_count)


if __name__ == "__main__":
    main()
