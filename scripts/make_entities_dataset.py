#!/usr/bin/env python3
"""The entities data set for fine-tuning a token classifier: generated English sentences with
people, places and organisations tagged in BIO (B-PER, I-PER, B-LOC, I-LOC, B-ORG, I-ORG, O).
Written as JSON lines {"tokens": [words], "tags": [one tag per word]}.

Everything comes from this file: ~35 sentence templates (a few with no entity at all), common
first names and surnames, real city names (facts), and company names invented by joining a word to
a suffix ("Bluefield Systems", "Harbor Labs Inc."). Names have one to three words (I- tags), and
people are written as a first name, a full name, a full name with an initial, or a title and a
surname (the title is O). The model is uncased, so it cannot lean on capitals: it has to read the
words and the template around them.

A fifth of every list (a seeded sample) is held out: train.jsonl never uses those names; in
test.jsonl every entity is drawn from the held-out part with probability one half, so the test
score measures how well the tagger generalises to names it has not seen. Sentences are unique
within and across the two files. Fixed seeds: byte-identical on every run.

    python3 scripts/make_entities_dataset.py --out www/datasets/entities [--train 2000 --test 300]
"""

import argparse
import hashlib
import json
import random
from pathlib import Path

FIRST = """Ada Alan Grace Maria Ahmed Yuki Olga Pedro Fatima Liam Noah Emma Olivia Lucas Sofia Mateo
Chloe Ivan Anna Omar Leila Kenji Mei Ravi Priya Tomas Elena Jonas Sara Hugo Nina Felix Clara Oscar
Rosa Daniel Laura Marco Ines Samuel Julia Adam Hana Victor Irene Paul Alice Martin Eva Karl Lena
Diego Aisha Chen Kofi Amara Lars Freya Mateus Nadia Rahul Sven Zara Boris Lucia Arjun Ingrid Tariq
Mira Theo Esther Jakob Vera Ali Sonia Emil Dora""".split()
SURNAMES = """Lovelace Turing Hopper Garcia Khan Tanaka Petrova Silva Haddad Murphy Smith Johnson
Brown Muller Rossi Novak Kowalski Jensen Larsen Ivanova Nakamura Kim Patel Singh Okafor Mensah
Dubois Martin Bernard Schmidt Fischer Weber Becker Hoffmann Ricci Moretti Costa Santos Pereira
Lopez Hernandez Gonzalez Nguyen Tran Wong Chang Lindqvist Nilsson Andersen Berg Hansen Virtanen
Korhonen Popescu Horvath Nagy Kovacs Yilmaz Demir Cohen Levi Abbott Carter Fletcher Hughes Walsh
Reid Morgan Quinn Baker Porter Hayes Ellis Grant Shaw""".split()
CITIES = """London Paris Berlin Madrid Rome Lisbon Vienna Prague Warsaw Oslo Stockholm Helsinki
Dublin Amsterdam Brussels Zurich Geneva Athens Istanbul Cairo Nairobi Lagos Accra Tokyo Osaka Seoul
Beijing Shanghai Mumbai Delhi Karachi Dhaka Bangkok Jakarta Manila Sydney Melbourne Auckland Toronto
Montreal Chicago Boston Seattle Denver Houston Lima Bogota Santiago Quito Havana Glasgow Leeds
Lyon Marseille Munich Hamburg Milan Naples Seville Porto Krakow Budapest Bucharest Sofia_City
Copenhagen Bergen Tampere Riga Vilnius Tallinn""".split() + [
    "New York", "San Francisco", "Los Angeles", "Buenos Aires", "Cape Town", "Hong Kong",
    "Rio de Janeiro", "Mexico City", "Kuala Lumpur", "Tel Aviv", "Abu Dhabi", "Sao Paulo",
    "New Delhi", "Las Vegas", "Salt Lake City", "Addis Ababa", "Ho Chi Minh City", "St Petersburg",
]
CITIES = [c for c in CITIES if c != "Sofia_City"]  # Sofia is a first name here
ORG_WORDS = """Acme Globex Initech Umbrella Stark Wayne Bluefield Redstone Northwind Silverline
Brightwater Ironbridge Greenleaf Sunpeak Oakridge Starlight Clearview Highgate Riverbend Goldcrest
Copperfield Blackwood Whitestone Evergreen Maplewood Lakeshore Westbrook Eastgate Fairhaven Pinecrest
Stonehill Deepwell Skyward Brightpath Coldspring Hartwell Ashford Kingsley Thornbury Wexford Zephyr
Vortex Quantix Nexora Lumina Vantage Orbital Pioneer Summit Keystone Beacon Horizon Crescent Apex
Meridian Sterling Falcon Cobalt Granite Juniper Sequoia""".split()
ORG_SUFFIX = ["Systems", "Labs", "Bank", "Group", "Motors", "Foods", "Airlines", "Media",
              "Energy", "Pharma", "Industries", "Software", "Partners", "Logistics", "Insurance"]
TITLES = ["Dr.", "Mr.", "Ms.", "Mrs.", "Professor"]
JOBS = ["engineer", "teacher", "doctor", "lawyer", "nurse", "pilot", "chef", "writer", "banker",
        "designer", "farmer", "scientist", "singer", "manager", "student", "painter"]
THINGS = ["bridge", "library", "museum", "station", "market", "school", "factory", "garden",
          "stadium", "hospital", "harbour", "theatre", "office", "bakery"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]

# {P} {P2}: people, {L} {L2}: places, {O} {O2}: organisations; the rest are plain words.
TEMPLATES = """{P} was born in {L} .
{P} works for {O} .
{O} opened an office in {L} .
{P} met {P2} in {L} .
{P} moved to {L} in {year} .
{P} joined {O} as a {job} .
{O} hired {P} last {month} .
The {job} {P} lives in {L} .
{P} and {P2} founded {O} in {year} .
{O} is based in {L} .
Yesterday {P} flew from {L} to {L2} .
{P} left {O} to start a company in {L} .
According to {P} , {O} will expand to {L} next year .
{O} bought {O2} for {num} million dollars .
{P} gave a talk at {O} on {day} .
The mayor of {L} , {P} , visited {O} .
{P} wrote a letter to {P2} .
{P} studied in {L} before joining {O} .
Shares of {O} rose after the meeting in {L} .
{P} , a {job} from {L} , won the prize .
Did {P} call {O} about the order ?
{P} spent the summer in {L} with {P2} .
{O} and {O2} signed a deal in {L} .
{P} is the new head of {O} .
We drove from {L} to {L2} in {num} hours .
{P} told reporters that {O} would close its {thing} in {L} .
In {year} , {P} became the first {job} at {O} .
The new {thing} in {L} was built by {O} .
{P} thanked {P2} for the help .
My friend {P} visits {L} every {month} .
The meeting was moved to {day} .
It rained all day and the {thing} stayed closed .
She said the report would be ready on {day} .
The {job} fixed the old {thing} in the morning .
Nobody knew why the {thing} had closed in {month} .
They walked to the {thing} after lunch .""".split("\n")


def split_pool(items, seed):
    """(seen, held out): a seeded fifth of `items` is held out for the test set."""
    items = sorted(set(items))
    held = set(random.Random(seed).sample(items, len(items) // 5))
    return [x for x in items if x not in held], [x for x in items if x in held]


class Gen:
    def __init__(self, rng, pools, p_held):
        self.rng, self.pools, self.p_held = rng, pools, p_held

    def pick(self, kind):
        seen, held = self.pools[kind]
        return self.rng.choice(held if self.rng.random() < self.p_held else seen)

    def person(self):
        r = self.rng.random()
        if r < 0.3:
            return [], self.pick("first").split()
        if r < 0.75:
            return [], [self.pick("first"), self.pick("surname")]
        if r < 0.85:
            return [], [self.pick("first"), self.rng.choice("ABCDEFGHJKLMNPRSTW") + ".", self.pick("surname")]
        return [self.rng.choice(TITLES)], [self.pick("surname")]

    def org(self):
        name, r = [self.pick("org")], self.rng.random()
        if r < 0.15:
            return name  # just "Globex"
        name.append(self.rng.choice(ORG_SUFFIX))
        return name + ["Inc."] if r < 0.3 else name

    def sentence(self, template):
        tokens, tags = [], []
        for w in template.split():
            if w in ("{P}", "{P2}"):
                title, name = self.person()
                tokens += title + name
                tags += ["O"] * len(title) + ["B-PER"] + ["I-PER"] * (len(name) - 1)
            elif w in ("{L}", "{L2}", "{O}", "{O2}"):
                kind = "LOC" if w[1] == "L" else "ORG"
                name = self.pick("city").split() if kind == "LOC" else self.org()
                tokens += name
                tags += [f"B-{kind}"] + [f"I-{kind}"] * (len(name) - 1)
            else:
                fill = {"{year}": lambda: str(self.rng.randint(1950, 2024)),
                        "{num}": lambda: str(self.rng.randint(2, 90)),
                        "{job}": lambda: self.rng.choice(JOBS),
                        "{thing}": lambda: self.rng.choice(THINGS),
                        "{day}": lambda: self.rng.choice(DAYS),
                        "{month}": lambda: self.rng.choice(MONTHS)}.get(w)
                tokens.append(fill() if fill else w)
                tags.append("O")
        return {"tokens": tokens, "tags": tags}


def unique(draw, key, n, taken):
    """n examples from draw() (None: try again) whose key(example) is not in taken (updated)."""
    out = []
    while len(out) < n:
        ex = draw()
        if ex is None:
            continue
        k = key(ex)
        if k in taken:
            continue
        taken.add(k)
        out.append(ex)
    return out


def name_pools():
    """Every word list split into names seen in training and names held out for the test set."""
    return {"first": split_pool(FIRST, "bertscope-entities-first"),
            "surname": split_pool(SURNAMES, "bertscope-entities-surname"),
            "city": split_pool(CITIES, "bertscope-entities-city"),
            "org": split_pool(ORG_WORDS, "bertscope-entities-org")}


def make(gen, n, taken):
    return unique(lambda: gen.sentence(gen.rng.choice(TEMPLATES)), lambda ex: " ".join(ex["tokens"]).lower(), n, taken)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--test", type=int, default=300)
    a = ap.parse_args()
    pools = name_pools()
    taken = set()
    train = make(Gen(random.Random("bertscope-entities-train"), pools, 0.0), a.train, taken)
    test = make(Gen(random.Random("bertscope-entities-test"), pools, 0.5), a.test, taken)
    held_words = {w.lower() for _, held in pools.values() for x in held for w in x.split()}
    seen_words = {w.lower() for seen, _ in pools.values() for x in seen for w in x.split()}
    unseen_only = held_words - seen_words
    for ex in train:  # train never shows a held-out name
        assert not any(t.lower() in unseen_only for t in ex["tokens"]), ex
    a.out.mkdir(parents=True, exist_ok=True)
    for name, items in (("train", train), ("test", test)):
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items)
        (a.out / f"{name}.jsonl").write_text(body, encoding="utf-8")
        tags = [t for x in items for t in x["tags"]]
        ents = sum(t.startswith("B-") for t in tags)
        unseen = sum(1 for x in items for t, g in zip(x["tokens"], x["tags"]) if g != "O" and t.lower() in unseen_only)
        counts = ", ".join(f"{k} {sum(t == 'B-' + k for t in tags)}" for k in ("PER", "LOC", "ORG"))
        sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
        print(f"{name}.jsonl: {len(items)} lines, {len(tags)} tokens ({sum(t == 'O' for t in tags)} O), "
              f"{ents} entities ({counts}), {unseen} entity words never in train; sha256 {sha}")


if __name__ == "__main__":
    main()
