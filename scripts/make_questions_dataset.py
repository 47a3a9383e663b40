#!/usr/bin/env python3
"""The questions data set for fine-tuning extractive question answering: generated contexts of one
to three sentences about people and companies, and a question whose answer is a span of the
context. Written as JSON lines {"question": .., "context": .., "answer": {"text": .., "start": ..}}
where start is a character offset: context[start:start + len(text)] == text (asserted).

Facts come from ~20 sentence templates (born in a city or a year, lives in, works for, works as,
founded a company in a year, a company based in a city or founded in a year, bought a thing of a
colour); questions are who / where / which company / when (years) / what (jobs, things, colours),
in several wordings each. A context may hold a second person or company and facts of the same kind
(two people born in two cities), so the model has to find the right one; the sentences are
shuffled, so answers sit at varied positions. The names, cities and company words are those of
scripts/make_entities_dataset.py, with the same held-out fifth: train.jsonl never uses them, and
in test.jsonl every name is drawn from them with probability one half. Fixed seeds: byte-identical
on every run.

    python3 scripts/make_questions_dataset.py --out www/datasets/questions [--train 2000 --test 300]
"""

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_entities_dataset import CITIES, JOBS, ORG_SUFFIX, ORG_WORDS, name_pools, unique  # noqa: E402

THINGS = ["bicycle", "car", "boat", "piano", "lamp", "sofa", "guitar", "camera", "tent", "kite",
          "clock", "violin", "scooter", "painting", "telescope"]
COLOURS = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "grey", "brown"]

# Per fact: sentence wordings, and (question wordings, the slot that answers). {p} is the
# person's mention in the sentence (the full name on first mention, else the first name), {f}
# the first name, {o} a company, {l} a city, {y} a year, {j} a job, {t} a thing, {c} a colour.
FACTS = {
    "born_city": (["{p} was born in {l}.", "{p} was born and raised in {l}."],
                  [(["Where was {f} born?", "In which city was {f} born?"], "l"),
                   (["Who was born in {l}?"], "p")]),
    "born_year": (["{p} was born in {y}.", "{p} was born in the year {y}."],
                  [(["When was {f} born?", "In which year was {f} born?", "What year was {f} born?"], "y")]),
    "lives": (["{p} lives in {l}.", "These days {p} lives in {l}.", "{p} moved to {l} last year."],
              [(["Where does {f} live?", "Which city does {f} live in?"], "l"),
               (["Who lives in {l}?"], "p")]),
    "works_for": (["{p} works for {o}.", "{p} has worked at {o} since {y}."],
                  [(["Which company does {f} work for?", "Where does {f} work?", "Who employs {f}?"], "o"),
                   (["Who works for {o}?", "Who works at {o}?"], "p")]),
    "job": (["{p} is a {j}.", "{p} works as a {j}.", "By profession {p} is a {j}."],
            [(["What is {f}'s job?", "What does {f} do for a living?", "What is {f}'s profession?"], "j")]),
    "founded": (["{p} founded {o} in {y}.", "In {y}, {p} started a company called {o}."],
                [(["Who founded {o}?", "Who started {o}?"], "p"),
                 (["Which company did {f} found?", "What company did {f} start?"], "o"),
                 (["When was {o} founded?", "In which year did {f} found {o}?"], "y")]),
    "based": (["{o} is based in {l}.", "The head office of {o} is in {l}."],
              [(["Where is {o} based?", "In which city is {o} based?", "Where is the head office of {o}?"], "l")]),
    "bought": (["{p} bought a {c} {t}.", "Last week {p} bought a {c} {t}."],
               [(["What did {f} buy?"], "t"), (["What colour is {f}'s {t}?", "What colour was the {t} that {f} bought?"], "c")]),
}


class Gen:
    def __init__(self, rng, pools, p_held):
        self.rng, self.pools, self.p_held = rng, pools, p_held

    def pick(self, kind, avoid=()):
        seen, held = self.pools[kind]
        while True:
            x = self.rng.choice(held if self.rng.random() < self.p_held else seen)
            if x not in avoid:
                return x

    def org(self, avoid):
        while True:
            w = self.pick("org")
            name = w if self.rng.random() < 0.2 else f"{w} {self.rng.choice(ORG_SUFFIX)}"
            if w not in {a.split()[0] for a in avoid}:
                return name

    def example(self):
        rng = self.rng
        n_people = rng.choice([1, 1, 2])
        firsts = []
        people = []
        for _ in range(n_people):
            f = self.pick("first", firsts)
            firsts.append(f)
            people.append({"f": f, "full": f"{f} {self.pick('surname')}"})
        orgs = []
        # facts: 1-3 sentences; a second person (or company) gets facts of the same kinds
        kinds = rng.sample(sorted(FACTS), rng.choice([1, 2, 2, 3]))
        facts, used = [], {"l": [], "y": [], "j": [], "t": [], "c": []}
        for kind in kinds:
            owners = people if n_people == 2 and rng.random() < 0.6 and len(facts) < 2 else people[:1]
            for person in owners:
                if len(facts) == 3:
                    break
                slots = {"f": person["f"], "pfull": person["full"]}
                if kind in ("works_for", "founded", "based"):
                    slots["o"] = self.org(orgs)
                    orgs.append(slots["o"])
                for k, fn in (("l", lambda: self.pick("city")), ("y", lambda: str(rng.randint(1950, 2020))),
                              ("j", lambda: rng.choice(JOBS)), ("t", lambda: rng.choice(THINGS)),
                              ("c", lambda: rng.choice(COLOURS))):
                    while True:
                        v = fn()
                        if v not in used[k]:
                            break
                    used[k].append(v)
                    slots[k] = v
                facts.append((kind, person, slots))
        rng.shuffle(facts)
        # render: the first mention of a person is the full name
        context, spans, mentioned = "", [], set()
        for kind, person, slots in facts:
            pattern = rng.choice(FACTS[kind][0])
            p = person["full"] if person["f"] not in mentioned else person["f"]
            if "{p}" in pattern:
                mentioned.add(person["f"])
            where = {}
            sent, i = "", 0
            while i < len(pattern):
                if pattern[i] == "{":
                    k = pattern[i + 1]
                    v = p if k == "p" else slots[k]
                    if sent == "":
                        v = v[0].upper() + v[1:]
                    where[k] = (len(context) + (1 if context else 0) + len(sent), v)
                    sent += v
                    i += 3
                else:
                    sent += pattern[i]
                    i += 1
            context += (" " if context else "") + sent
            spans.append((kind, slots, where))
        # the question: about one fact, whose answer is unique in the context
        rng.shuffle(spans)
        for kind, slots, where in spans:
            wordings, slot = rng.choice(FACTS[kind][1])
            if slot not in where:
                continue
            q = rng.choice(wordings).format(f=slots["f"], **{k: v for k, v in slots.items() if k in "oljytc"})
            start, text = where[slot]
            # every value is used once per context (people have distinct first names), so the
            # answer is unique; skip a question that gives its answer away
            if slot != "p" and (context.count(text) != 1 or text.lower() in q.lower()):
                continue
            assert context[start:start + len(text)] == text, (context, start, text)
            return {"question": q, "context": context, "answer": {"text": text, "start": start}}
        return None


def answer_kind(text):
    if text.isdigit():
        return "year"
    for kind, words in (("job", JOBS), ("thing", THINGS), ("colour", COLOURS), ("city", CITIES)):
        if text in words:
            return kind
    return "company" if text.split()[0] in ORG_WORDS else "person"


def make(gen, n, taken):
    return unique(gen.example, lambda ex: (ex["question"] + "|" + ex["context"]).lower(), n, taken)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--test", type=int, default=300)
    a = ap.parse_args()
    pools = name_pools()
    taken = set()
    train = make(Gen(random.Random("bertscope-questions-train"), pools, 0.0), a.train, taken)
    test = make(Gen(random.Random("bertscope-questions-test"), pools, 0.5), a.test, taken)
    a.out.mkdir(parents=True, exist_ok=True)
    for name, items in (("train", train), ("test", test)):
        for x in items:
            s, t = x["answer"]["start"], x["answer"]["text"]
            assert x["context"][s:s + len(t)] == t, x
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items)
        (a.out / f"{name}.jsonl").write_text(body, encoding="utf-8")
        kinds = {}
        for x in items:
            kinds[answer_kind(x["answer"]["text"])] = kinds.get(answer_kind(x["answer"]["text"]), 0) + 1
        kinds = ", ".join(f"{k} {kinds.get(k, 0)}" for k in ("person", "city", "company", "year", "job", "thing", "colour"))
        sents = [x["context"].count(". ") + 1 for x in items]
        sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
        print(f"{name}.jsonl: {len(items)} lines; contexts of 1/2/3 sentences: "
              f"{sents.count(1)}/{sents.count(2)}/{sents.count(3)}; answers: {kinds}; sha256 {sha}")


if __name__ == "__main__":
    main()
