#!/usr/bin/env python3
"""Generate www/corpora/simple.txt: simple English stories for training a tiny BERT.

A small grammar of short stories (3-7 sentences each) over a small vocabulary
(567 distinct words, all but 9 whole WordPiece tokens of the uncased
BERT vocabulary), built so that the structure is learnable by a 2-layer BERT
in a minute:

  * subject-verb agreement: "the dog runs" / "the dogs run", "he is" / "they are",
    "there is a cup" / "there are two cups", "has" / "have", "was" / "were";
  * determiners, word order, adjectives before nouns, prepositions of place;
  * pronouns that refer back to a noun earlier in the story (he/she/it/they,
    his/her/its/their), and facts that are set up and then reused (where the
    lost key is, what colour the hat is, how many apples are left);
  * word senses told apart by context: "bank" (river, fish, water, shore vs
    money, account, loan, teller) and "bat" (animal: cave, night, wings vs
    baseball: ball, hit, team);
  * fixed facts: colours of common things (the sky is blue, grass is green),
    opposites, days of the week, months and numbers in sequence, what animals
    can do, simple cause and effect ("it rained, so the grass was wet").

Format: one sentence per line, documents (stories) separated by one blank line.
Deterministic: a fixed seed and the standard library only, so the output is
byte-identical on every run and Python version >= 3.8.

Usage: python3 scripts/make_simple_corpus.py [--out FILE] [--stories N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 20240611
STORIES = 1400

# --------------------------------------------------------------------------
# Lexicon
# --------------------------------------------------------------------------

BOYS = ["Tom", "Ben", "Sam", "Max", "Leo", "Jack", "Dan", "Tim", "Paul", "Nick"]
GIRLS = ["Anna", "Mia", "Lily", "Emma", "Lucy", "Kate", "Sara", "Amy", "Jane", "Ella"]

# (singular, plural)
ANIMALS = [
    ("dog", "dogs"), ("cat", "cats"), ("bird", "birds"), ("horse", "horses"),
    ("cow", "cows"), ("duck", "ducks"), ("rabbit", "rabbits"), ("fox", "foxes"),
    ("bear", "bears"), ("frog", "frogs"), ("sheep", "sheep"), ("mouse", "mice"),
    ("pig", "pigs"), ("goat", "goats"), ("hen", "hens"),
]
SOUND = {"dog": "barks", "cat": "meows", "cow": "moos", "duck": "quacks", "bird": "sings",
         "horse": "runs", "pig": "eats", "sheep": "sleeps", "hen": "eats", "goat": "jumps",
         "frog": "jumps", "mouse": "hides", "rabbit": "hops", "fox": "runs", "bear": "sleeps"}
FOOD_OF = {"dog": "meat", "cat": "fish", "bird": "seeds", "horse": "grass", "cow": "grass",
           "duck": "bread", "rabbit": "carrots", "fox": "meat", "bear": "fish", "frog": "flies",
           "sheep": "grass", "mouse": "cheese", "pig": "corn", "goat": "grass", "hen": "corn"}
HOME_OF = {"dog": "house", "cat": "house", "bird": "tree", "horse": "farm", "cow": "farm",
           "duck": "pond", "rabbit": "field", "fox": "forest", "bear": "forest", "frog": "pond",
           "sheep": "farm", "mouse": "house", "pig": "farm", "goat": "farm", "hen": "farm"}

# verbs: (base, third person singular, past)
V = {
    "run": ("run", "runs", "ran"), "jump": ("jump", "jumps", "jumped"),
    "sleep": ("sleep", "sleeps", "slept"), "eat": ("eat", "eats", "ate"),
    "play": ("play", "plays", "played"), "walk": ("walk", "walks", "walked"),
    "swim": ("swim", "swims", "swam"), "sit": ("sit", "sits", "sat"),
    "hide": ("hide", "hides", "hid"), "look": ("look", "looks", "looked"),
    "find": ("find", "finds", "found"), "go": ("go", "goes", "went"),
    "have": ("have", "has", "had"), "be": ("are", "is", "was"),
    "see": ("see", "sees", "saw"), "like": ("like", "likes", "liked"),
    "want": ("want", "wants", "wanted"), "get": ("get", "gets", "got"),
    "give": ("give", "gives", "gave"), "take": ("take", "takes", "took"),
    "put": ("put", "puts", "put"), "make": ("make", "makes", "made"),
    "read": ("read", "reads", "read"), "drink": ("drink", "drinks", "drank"),
    "live": ("live", "lives", "lived"), "fly": ("fly", "flies", "flew"),
    "hit": ("hit", "hits", "hit"), "catch": ("catch", "catches", "caught"),
    "wake": ("wake", "wakes", "woke"), "come": ("come", "comes", "came"),
    "buy": ("buy", "buys", "bought"), "sing": ("sing", "sings", "sang"),
    "help": ("help", "helps", "helped"), "open": ("open", "opens", "opened"),
    "close": ("close", "closes", "closed"), "wear": ("wear", "wears", "wore"),
    "count": ("count", "counts", "counted"), "watch": ("watch", "watches", "watched"),
    "love": ("love", "loves", "loved"), "carry": ("carry", "carries", "carried"),
    "cook": ("cook", "cooks", "cooked"), "wash": ("wash", "washes", "washed"),
    "draw": ("draw", "draws", "drew"), "climb": ("climb", "climbs", "climbed"),
    "throw": ("throw", "throws", "threw"), "save": ("save", "saves", "saved"),
    "need": ("need", "needs", "needed"), "pay": ("pay", "pays", "paid"),
    "smile": ("smile", "smiles", "smiled"), "laugh": ("laugh", "laughs", "laughed"),
    "cry": ("cry", "cries", "cried"), "ask": ("ask", "asks", "asked"),
    "say": ("say", "says", "said"), "feel": ("feel", "feels", "felt"),
}

# things that can be lost / owned: (singular, plural)
THINGS = [
    ("ball", "balls"), ("book", "books"), ("cup", "cups"), ("hat", "hats"),
    ("key", "keys"), ("shoe", "shoes"), ("toy", "toys"), ("pen", "pens"),
    ("bag", "bags"), ("coat", "coats"), ("spoon", "spoons"), ("box", "boxes"),
    ("kite", "kites"), ("doll", "dolls"), ("clock", "clocks"), ("card", "cards"),
]
SURFACES = ["table", "bed", "chair", "desk", "sofa", "shelf"]  # on / under / near / behind
CONTAINERS = ["box", "bag", "basket", "drawer", "car"]  # in
ROOMS = ["kitchen", "garden", "bedroom", "room", "hall"]
FREE_COLORS = ["red", "blue", "green", "yellow", "white", "black", "brown", "pink", "orange", "gray"]
SIZES = ["big", "small", "little", "old", "new"]
FEELINGS = ["happy", "sad", "tired", "hungry", "angry", "afraid"]

FRUITS = [("apple", "apples"), ("orange", "oranges"), ("banana", "bananas"),
          ("egg", "eggs"), ("cookie", "cookies"), ("carrot", "carrots"), ("cake", "cakes")]

# fixed colours of common things: (noun phrase, is/are, colour)
COLOR_FACTS = [
    ("the sky", "is", "blue"), ("the sea", "is", "blue"), ("grass", "is", "green"),
    ("the grass", "is", "green"), ("leaves", "are", "green"), ("snow", "is", "white"),
    ("milk", "is", "white"), ("clouds", "are", "white"), ("the sun", "is", "yellow"),
    ("a banana", "is", "yellow"), ("bananas", "are", "yellow"), ("a lemon", "is", "yellow"),
    ("an apple", "is", "red"), ("a tomato", "is", "red"), ("strawberries", "are", "red"),
    ("blood", "is", "red"), ("an orange", "is", "orange"), ("a carrot", "is", "orange"),
    ("coal", "is", "black"), ("the night sky", "is", "black"), ("chocolate", "is", "brown"),
    ("a frog", "is", "green"), ("the moon", "is", "white"), ("a crow", "is", "black"),
]

# (adjective, opposite, nouns it suits, the thing that has the opposite)
OPPOSITES = [
    ("big", "small", "the elephant", "the mouse"),
    ("tall", "short", "the tree", "the grass"),
    ("hot", "cold", "the soup", "the ice"),
    ("fast", "slow", "the rabbit", "the turtle"),
    ("heavy", "light", "the rock", "the feather"),
    ("old", "young", "the grandfather", "the baby"),
    ("full", "empty", "the red cup", "the blue cup"),
    ("wet", "dry", "the towel", "the sand"),
    ("loud", "quiet", "the drum", "the mouse"),
    ("long", "short", "the river", "the road"),
    ("hard", "soft", "the rock", "the pillow"),
    ("clean", "dirty", "the white shirt", "the old shoe"),
    ("rich", "poor", "the king", "the farmer"),
    ("happy", "sad", "the boy with the kite", "the boy with no kite"),
    ("open", "closed", "the door", "the window"),
    ("light", "dark", "the day", "the night"),
    ("early", "late", "the bird", "the cat"),
    ("strong", "weak", "the bear", "the kitten"),
    ("thick", "thin", "the big book", "the small book"),
    ("high", "low", "the mountain", "the hill"),
]
WORD_PAIRS = [("up", "down"), ("in", "out"), ("left", "right"), ("day", "night"),
              ("yes", "no"), ("first", "last"), ("good", "bad"), ("come", "go"),
              ("open", "close"), ("black", "white"), ("boy", "girl"), ("man", "woman"),
              ("top", "bottom"), ("push", "pull"), ("give", "take"), ("win", "lose"),
              ("start", "end"), ("before", "after"), ("above", "below"), ("summer", "winter")]

DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
SEASON_OF = {"december": "winter", "january": "winter", "february": "winter",
             "march": "spring", "april": "spring", "may": "spring",
             "june": "summer", "july": "summer", "august": "summer",
             "september": "fall", "october": "fall", "november": "fall"}
NUMS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
        "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
        "seventeen", "eighteen", "nineteen", "twenty"]

# (cause, effect) with {s} = subject, {o} = object pronoun, {p} = possessive,
# {v_*} verbs filled per subject; all past tense.
CAUSES = [
    ("it rained all night", "the grass was wet in the morning"),
    ("it rained all day", "the road was wet"),
    ("the sun was hot", "the ice melted"),
    ("it was very cold", "the water in the pond turned to ice"),
    ("the wind was strong", "the kite flew high"),
    ("it snowed all night", "the garden was white"),
    ("there was no rain for a long time", "the plants were dry"),
    ("the lamp was off", "the room was dark"),
    ("the glass fell on the floor", "it broke"),
    ("the dog was dirty", "they washed it"),
]
PERSON_CAUSES = [  # subject-based: {s} he/she, {S} name
    ("{S} was hungry", "{s} ate some bread"),
    ("{S} was thirsty", "{s} drank a glass of water"),
    ("{S} was tired", "{s} went to bed early"),
    ("{S} was cold", "{s} put on {p} coat"),
    ("{S} was hot", "{s} opened the window"),
    ("{S} was late", "{s} ran to school"),
    ("{S} was sick", "{s} stayed at home"),
    ("{S} was sad", "{s} cried"),
    ("{S} was happy", "{s} sang a song"),
    ("{S} dropped {p} cup", "it broke"),
    ("{S} studied hard", "{s} passed the test"),
    ("{S} did not study", "{s} failed the test"),
    ("{S} forgot {p} key", "{s} could not open the door"),
    ("{S} ran too fast", "{s} fell down"),
    ("{S} ate too much cake", "{s} felt sick"),
    ("{S} saw a big bear", "{s} was afraid"),
]


def cap(s: str) -> str:
    return s[0].upper() + s[1:]


class Person:
    def __init__(self, name: str, female: bool):
        self.name = name
        self.s, self.o, self.p = ("she", "her", "her") if female else ("he", "him", "his")


def person(rng: random.Random, avoid: tuple = ()) -> Person:
    while True:
        female = rng.random() < 0.5
        name = rng.choice(GIRLS if female else BOYS)
        if name not in avoid:
            return Person(name, female)


def a_an(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def vb(verb: str, plural: bool, past: bool) -> str:
    base, s3, pst = V[verb]
    if verb == "be":
        return ("were" if plural else "was") if past else ("are" if plural else "is")
    if past:
        return pst
    return base if plural else s3


def ordered_sample(rng: random.Random, pool: list, k: int) -> list:
    """k items of pool, kept in pool order (the pools are written in story order)."""
    return [pool[i] for i in sorted(rng.sample(range(len(pool)), k))]


def num_noun(n: int, pair: tuple) -> str:
    return f"{NUMS[n]} {pair[0] if n == 1 else pair[1]}"


# --------------------------------------------------------------------------
# Story generators: each returns a list of sentences (without the period
# logic; sentences are complete strings).
# --------------------------------------------------------------------------

def story_lost_thing(rng):
    x = person(rng)
    thing = rng.choice(THINGS)[0]
    col = rng.choice(FREE_COLORS)
    wrong = rng.sample(SURFACES, 2)
    where_prep = rng.choice(["under", "on", "behind", "near"])
    where = rng.choice([s for s in SURFACES if s not in wrong])
    cont = rng.choice([c for c in CONTAINERS if c != thing])
    out = [f"{x.name} has {a_an(col)} {thing}.",
           f"One day {x.s} could not find {x.p} {thing}.",
           f"{cap(x.s)} looked in the {cont}, but the {thing} was not there."]
    if rng.random() < 0.6:
        out.append(f"{cap(x.s)} looked under the {wrong[0]}, but it was not there.")
    out.append(f"Then {x.s} looked {where_prep} the {where}.")
    out.append(f"The {col} {thing} was {where_prep} the {where}.")
    out.append(rng.choice([f"{x.name} was happy.", f"{cap(x.s)} was very happy.",
                           f"Now {x.name} has {x.p} {thing} again."]))
    return out


def story_animal(rng):
    sg, pl = rng.choice(ANIMALS)
    plural = rng.random() < 0.5
    past = rng.random() < 0.35
    subj = f"the {pl}" if plural else f"the {sg}"
    pro = "they" if plural else "it"
    poss = "their" if plural else "its"
    adj = rng.choice(SIZES + ["brown", "white", "black", "happy"])
    home = HOME_OF[sg]
    food = FOOD_OF[sg]
    where = {"house": "in a house", "tree": "in a tree", "farm": "on a farm", "pond": "near a pond",
             "field": "in a field", "forest": "in the forest"}[home]
    first = (f"There {'were' if past else 'are'} {rng.choice(NUMS[2:6])} {adj} {pl} {where}."
             if plural else
             f"There {'was' if past else 'is'} {a_an(adj)} {sg} {where}.")
    out = [first]
    out.append(f"{cap(pro)} {vb('eat', plural, past)} {food} every day.")
    acts = ["run", "jump", "sleep", "play", "walk", "sit", "hide"]
    if sg in ("duck", "frog", "bear", "dog"):
        acts.append("swim")
    if sg in ("bird", "duck", "hen"):
        acts.append("fly")
    a1, a2 = rng.sample(acts, 2)
    tail1 = {"run": "in the field", "jump": "over the log", "sleep": "in the sun",
             "play": "with a ball", "walk": "to the water", "sit": "under the tree",
             "hide": "behind the wall", "swim": "in the pond", "fly": "over the house"}
    out.append(f"In the morning {pro} {vb(a1, plural, past)} {tail1[a1]}.")
    out.append(f"In the evening {pro} {vb(a2, plural, past)} {tail1[a2]}.")
    if rng.random() < 0.6:
        out.append(f"{cap(subj)} {vb('be', plural, past)} {rng.choice(['happy', 'tired', 'hungry', 'sleepy'])}.")
    if rng.random() < 0.5:
        x = person(rng)
        out.append(f"{x.name} {vb('love', False, past)} {'them' if plural else 'it'} and gives {'them' if plural else 'it'} {food}."
                   if not past else
                   f"{x.name} loved {'them' if plural else 'it'} and gave {'them' if plural else 'it'} {food}.")
    if rng.random() < 0.4:
        out.append(f"{cap(poss)} home {'was' if past else 'is'} {where}.")
    return out


def story_agreement(rng):
    """Singular and plural side by side: the dog runs / the dogs run."""
    sg, pl = rng.choice(ANIMALS)
    n = rng.randint(2, 9)
    verb = rng.choice(["run", "jump", "sleep", "eat", "play", "walk", "sit", "hide"])
    past = rng.random() < 0.3
    out = [f"There {'was' if past else 'is'} one {sg} in the yard.",
           f"The {sg} {vb(verb, False, past)}.",
           f"Then {NUMS[n]} more {pl} {'came' if past else 'come'}.",
           f"Now the {pl} {vb(verb, True, past)} together.",
           f"{cap(NUMS[n + 1])} {pl} {vb('be', True, past)} in the yard."]
    if rng.random() < 0.5:
        out.append(f"One {sg} {vb('be', False, past)} {rng.choice(['big', 'small', 'old', 'young'])}, "
                   f"and the other {pl} {vb('be', True, past)} {rng.choice(['little', 'happy', 'hungry'])}.")
    return out


def story_friends(rng):
    x = person(rng)
    y = person(rng, (x.name,))
    past = rng.random() < 0.5
    place = rng.choice(["park", "garden", "school", "beach", "zoo", "farm", "forest"])
    out = [f"{x.name} and {y.name} {vb('be', True, past)} friends.",
           f"They {vb('go', True, past)} to the {place} together."]
    a, b = rng.choice([("tall", "short"), ("fast", "slow"), ("loud", "quiet"), ("big", "small"),
                       ("old", "young")])
    out.append(f"{x.name} {vb('be', False, past)} {a}, but {y.name} {vb('be', False, past)} {b}.")
    thing = rng.choice(THINGS)[0]
    out.append(f"{x.name} {vb('have', False, past)} {a_an(thing)}, and {x.s} {vb('give', False, past)} it to {y.name}.")
    out.append(f"{y.name} {vb('say', False, past)} thank you to {x.o}.")
    out.append(f"They {vb('be', True, past)} {rng.choice(['happy', 'very happy', 'good friends'])}.")
    if rng.random() < 0.5:
        out.insert(2, f"At the {place} they {vb(rng.choice(['play', 'run', 'walk', 'sing']), True, past)} all day.")
    return out


def story_colors(rng):
    x = person(rng)
    facts = rng.sample(COLOR_FACTS, rng.randint(2, 4))
    out = [f"{x.name} likes colors."]
    for np, be, col in facts:
        out.append(f"{x.name} says that {np} {be} {col}." if rng.random() < 0.3
                   else f"{cap(np)} {be} {col}.")
    if rng.random() < 0.7:
        past = rng.random() < 0.4
        t1, t2 = rng.sample([t[0] for t in THINGS], 2)
        c1, c2 = rng.sample(FREE_COLORS, 2)
        out.append(f"{cap(x.s)} {vb('have', False, past)} {a_an(c1)} {t1} and {a_an(c2)} {t2}.")
        out.append(f"{cap(x.p)} {t1} {vb('be', False, past)} {c1}, and {x.p} {t2} {vb('be', False, past)} {c2}.")
    return out


def story_color_question(rng):
    x = person(rng)
    y = person(rng, (x.name,))
    np, be, col = rng.choice(COLOR_FACTS)
    out = [f"{x.name} asked {y.name} a question.",
           f"\"What color {be} {np}?\"",
           f"{y.name} said, \"{cap(np)} {be} {col}.\"",
           f"{x.name} said, \"Yes, that is right.\""]
    np2, be2, col2 = rng.choice([f for f in COLOR_FACTS if f[2] != col])
    out.append(f"Then {y.name} asked, \"What color {be2} {np2}?\"")
    out.append(f"{x.name} said, \"{cap(np2)} {be2} {col2}.\"")
    return out


def story_opposites(rng):
    picks = rng.sample(OPPOSITES, rng.randint(2, 4))
    out = []
    for a, b, n1, n2 in picks:
        be1 = "is"
        form = rng.random()
        if form < 0.5:
            out.append(f"{cap(n1)} {be1} {a}, but {n2} is {b}.")
        elif form < 0.8:
            out.append(f"{cap(n2)} is {b}, and {n1} is {a}.")
        else:
            out.append(f"The opposite of {a} is {b}.")
    w1, w2 = rng.choice(WORD_PAIRS)
    out.append(f"The opposite of {w1} is {w2}.")
    if rng.random() < 0.5:
        out.append(f"The opposite of {w2} is {w1}.")
    if len(out) < 3:
        out.append("Every word has an opposite.")
    return out


def story_days(rng):
    i = rng.randrange(7)
    x = person(rng)
    today, tomorrow, yesterday = DAYS[i], DAYS[(i + 1) % 7], DAYS[(i - 1) % 7]
    out = [f"Today is {today}.", f"Yesterday was {yesterday}.", f"Tomorrow will be {tomorrow}."]
    if today in ("saturday", "sunday"):
        out.append(f"There is no school today, so {x.name} plays at home.")
    else:
        out.append(f"{x.name} goes to school today.")
    if rng.random() < 0.5:
        k = rng.randint(3, 5)
        seq = [DAYS[(i + j) % 7] for j in range(k)]
        out.append(f"{x.name} says the days: {', '.join(seq)}.")
    else:
        out.append(f"After {tomorrow} comes {DAYS[(i + 2) % 7]}.")
    if rng.random() < 0.4:
        out.append("A week has seven days.")
    return out


def story_months(rng):
    i = rng.randrange(12)
    m, nxt, prev = MONTHS[i], MONTHS[(i + 1) % 12], MONTHS[(i - 1) % 12]
    season = SEASON_OF[m]
    x = person(rng)
    weather = {"winter": "it is cold and snow falls", "spring": "the flowers grow and the birds sing",
               "summer": "it is hot and the sun is bright", "fall": "the leaves fall from the trees"}[season]
    out = [f"It is {m}.", f"The month before {m} is {prev}, and the month after {m} is {nxt}.",
           f"In {m} it is {season}.", f"In {season} {weather}."]
    if rng.random() < 0.6:
        act = {"winter": "wears a warm coat", "spring": "plays in the garden",
               "summer": "swims in the sea", "fall": "walks in the forest"}[season]
        out.append(f"{x.name} {act}.")
    if rng.random() < 0.3:
        out.append("A year has twelve months.")
    return out


def story_counting(rng):
    x = person(rng)
    pair = rng.choice(FRUITS)
    n = rng.randint(1, 8)
    past = rng.random() < 0.5
    out = [f"{x.name} {vb('have', False, past)} {num_noun(n, pair)}."]
    k = rng.randint(1, 3)
    more = f"{NUMS[k]} more {pair[0] if k == 1 else pair[1]}"
    out.append(f"{x.p.capitalize()} mother {vb('give', False, past)} {x.o} {more}.")
    n += k
    out.append(f"Now {x.s} {vb('have', False, past)} {num_noun(n, pair)}.")
    e = rng.randint(1, min(3, n))
    out.append(f"{cap(x.s)} {vb('eat', False, past)} {NUMS[e]}.")
    n -= e
    if n == 0:
        out.append(f"Now {x.s} {vb('have', False, past)} no {pair[1]}.")
    else:
        out.append(f"Now {x.s} {vb('have', False, past)} {num_noun(n, pair)} left.")
    if rng.random() < 0.4:
        out.append(f"{cap(x.s)} {vb('be', False, past)} {'full' if e > 1 else 'happy'}.")
    return out


def story_numbers(rng):
    x = person(rng)
    start = rng.randint(1, 12)
    k = rng.randint(4, 7)
    seq = NUMS[start:start + k]
    out = [f"{x.name} can count.", f"{cap(x.s)} counts: {', '.join(seq)}."]
    a = rng.randint(1, 18)
    out.append(f"{cap(NUMS[a + 1])} comes after {NUMS[a]}.")
    b = rng.randint(1, 18)
    out.append(f"{cap(NUMS[b])} comes before {NUMS[b + 1]}.")
    if rng.random() < 0.5:
        c = rng.randint(1, 9)
        out.append(f"One and {NUMS[c]} make {NUMS[c + 1]}.")
    if rng.random() < 0.5:
        sg, pl = rng.choice(ANIMALS + THINGS)
        n = rng.randint(2, 9)
        out.append(f"There {'is' if n == 1 else 'are'} {NUMS[n]} {pl} on the {rng.choice(['table', 'grass', 'road', 'floor'])}.")
    return out


def story_bank_river(rng):
    x = person(rng)
    who = rng.choice(["father", "mother", "grandfather", "brother", "sister", "friend"])
    out = [f"{x.name} went to the river with {x.p} {who}.",
           rng.choice(["They sat on the bank of the river.", "They sat on the grassy bank.",
                       "They walked along the river bank."])]
    pool = [
        "The water was cold and clear.",
        f"{x.name} saw a fish swim near the bank.",
        f"{cap(x.s)} put {x.p} feet in the water.",
        f"{x.p.capitalize()} {who} caught a big fish.",
        "A duck swam to the shore.",
        "The grass on the bank was green and soft.",
        "Small boats went down the river.",
        f"{x.name} threw a stone into the water.",
        "Frogs jumped from the bank into the water.",
        "The river was wide and deep.",
        f"They had lunch on the bank near the water.",
        "The fish swam fast in the river.",
    ]
    out += ordered_sample(rng, pool, rng.randint(2, 4))
    out.append(rng.choice([f"In the evening they walked home from the river.",
                           f"{x.name} liked the river very much.",
                           f"It was a good day at the river."]))
    return out


def story_bank_money(rng):
    x = person(rng)
    amt = rng.choice(["ten", "twenty", "fifty", "a hundred"])
    out = [f"{x.name} went to the bank in town.",
           rng.choice([f"{cap(x.s)} wanted to put {amt} dollars in {x.p} account.",
                       f"{cap(x.s)} had {amt} dollars to save.",
                       f"{cap(x.s)} needed money to buy a car."])]
    pool = [
        "The teller at the bank was kind.",
        f"{x.name} gave the money to the teller.",
        "The teller counted the money.",
        f"Now there is more money in {x.p} account.",
        f"The teller gave {x.o} a new card for {x.p} account.",
        "The bank keeps the money safe.",
        "Many people keep their money in the bank.",
        f"{cap(x.s)} asked the bank for a loan.",
        f"The bank gave {x.o} a loan to buy a house.",
        f"Later {x.s} paid the loan back to the bank.",
    ]
    out += ordered_sample(rng, pool, rng.randint(2, 4))
    out.append(rng.choice([f"Then {x.name} went home.", f"{x.name} was happy with the bank.",
                           "The bank closed at five."]))
    return out


def story_bat_animal(rng):
    out = [rng.choice(["At night a bat flew out of the cave.", "A bat lives in a dark cave.",
                       "The bats came out when the sun went down."])]
    pool = [
        "The bat has two wings and can fly in the dark.",
        "Bats eat insects at night.",
        "In the day the bat sleeps upside down.",
        "Bats hang from the top of the cave.",
        "The small bat flew over the trees.",
        "A bat is an animal, but it is not a bird.",
        "The bat found many insects near the lamp.",
        "Bats sleep in the day and fly at night.",
    ]
    out += ordered_sample(rng, pool, rng.randint(2, 4))
    if rng.random() < 0.5:
        x = person(rng)
        out.append(f"{x.name} saw the bat and was not afraid.")
    return out


def story_bat_baseball(rng):
    x = person(rng)
    out = [f"{x.name} plays baseball with {x.p} friends."]
    pool = [
        f"{x.p.capitalize()} father gave {x.o} a new bat and a ball.",
        f"{x.p.capitalize()} bat is made of wood.",
        "The other team throws the ball fast.",
        f"{cap(x.s)} holds the bat and waits for the ball.",
        f"{x.name} swings the bat hard.",
        f"{cap(x.s)} hits the ball with the bat.",
        f"The ball flies far, and {x.s} runs to first base.",
        f"{x.p.capitalize()} team wins the game.",
        f"After the game {x.s} puts the bat in {x.p} bag.",
    ]
    out += ordered_sample(rng, pool, rng.randint(2, 5))
    return out


def story_cause(rng):
    x = person(rng)
    picks = rng.sample(PERSON_CAUSES, rng.randint(1, 3))
    out = []
    if rng.random() < 0.5:
        c, e = rng.choice(CAUSES)
        out.append(rng.choice([f"{cap(c)}, so {e}.", f"Because {c}, {e}.", f"{cap(e)} because {c}."]))
    for j, (c, e) in enumerate(picks):
        c = c.format(S=x.name if j == 0 else x.s, s=x.s, p=x.p)
        e = e.format(S=x.name, s=x.s, p=x.p)
        out.append(f"{cap(c)}, so {e}.")
    if len(out) < 3:
        out.append(rng.choice([f"{x.name} had a long day.", f"The next day {x.name} felt better.",
                               f"{x.name} went home."]))
    if len(out) < 3:
        out.insert(0, f"This is a story about {x.name}.")
    return out


def story_day_routine(rng):
    x = person(rng)
    past = rng.random() < 0.5
    steps = [("In the morning", f"{x.s} {vb('wake', False, past)} up"),
             ("Then", f"{x.s} {vb('eat', False, past)} breakfast"),
             ("After breakfast", f"{x.s} {vb('go', False, past)} to school"),
             ("At noon", f"{x.s} {vb('eat', False, past)} lunch with {x.p} friends"),
             ("In the afternoon", f"{x.s} {vb('play', False, past)} in the park"),
             ("In the evening", f"{x.s} {vb('read', False, past)} a book"),
             ("At night", f"{x.s} {vb('go', False, past)} to sleep")]
    k = rng.randint(3, 6)
    idx = [0] + sorted(rng.sample(range(1, len(steps)), k - 1))
    out = [f"This is the day of {x.name}." if rng.random() < 0.5 else
           f"{x.name} {vb('have', False, past)} a busy day."]
    for i in idx:
        t, s = steps[i]
        out.append(f"{t} {s}.")
    return out


def story_scene(rng):
    """Where things are: there is / there are, prepositions."""
    room = rng.choice(ROOMS)
    out = [f"This is the {room}."]
    used = set()
    for _ in range(rng.randint(2, 4)):
        sg, pl = rng.choice(THINGS + [("dog", "dogs"), ("cat", "cats"), ("mouse", "mice")])
        if sg in used:
            continue
        used.add(sg)
        n = rng.choice([1, 1, 2, 3, 4])
        prep = rng.choice(["on", "under", "near", "behind", "next to"])
        surf = rng.choice(SURFACES)
        if n == 1:
            out.append(f"There is {a_an(sg)} {prep} the {surf}.")
        else:
            out.append(f"There are {NUMS[n]} {pl} {prep} the {surf}.")
    sg, pl = rng.choice([t for t in THINGS if t[0] not in used])
    cont = rng.choice(CONTAINERS[:4])
    out.append(f"The {pl} are in the {cont}." if rng.random() < 0.5 else f"The {sg} is in the {cont}.")
    if rng.random() < 0.5:
        x = person(rng)
        out.append(f"{x.name} likes {x.p} {room}.")
    return out


def story_can(rng):
    facts = [("a bird", "fly"), ("a fish", "swim"), ("a dog", "bark"), ("a horse", "run fast"),
             ("a frog", "jump"), ("a duck", "swim"), ("a cat", "climb a tree"), ("a bat", "fly"),
             ("a cow", "give milk"), ("a hen", "lay eggs"), ("a rabbit", "hop"), ("a bee", "make honey")]
    cannot = [("a fish", "walk"), ("a dog", "fly"), ("a cow", "climb a tree"), ("a pig", "fly"),
              ("a horse", "swim under the water"), ("a cat", "talk"), ("a fish", "fly"), ("a mouse", "fly")]
    picks = rng.sample(facts, rng.randint(2, 4))
    out = [f"{cap(a)} can {b}." for a, b in picks]
    a, b = rng.choice(cannot)
    out.append(f"{cap(a)} can not {b}.")
    if rng.random() < 0.5:
        x = person(rng)
        out.append(f"{x.name} can read and write.")
    if rng.random() < 0.5:
        out.append(f"Birds can fly, but fish can swim.")
    return out


def story_weather(rng):
    x = person(rng)
    kind = rng.choice(["rain", "snow", "sun", "wind"])
    if kind == "rain":
        out = ["It was a rainy day.", "Dark clouds were in the sky.",
               f"{x.name} took {x.p} umbrella.", "The rain made the streets wet.",
               f"When {x.s} came home, {x.p} shoes were wet."]
    elif kind == "snow":
        out = ["It was a cold winter day.", "Snow fell all night.",
               "In the morning the ground was white.", f"{x.name} put on {x.p} warm coat and hat.",
               f"{cap(x.s)} made a snowman in the garden."]
    elif kind == "sun":
        out = ["It was a hot summer day.", "The sun was bright and the sky was blue.",
               f"{x.name} went to the beach.", f"{cap(x.s)} swam in the sea.",
               f"Then {x.s} ate a cold ice cream."]
    else:
        out = ["It was a windy day.", "The wind moved the trees.",
               f"{x.name} flew {x.p} kite in the park.", "The kite went up high in the sky.",
               f"{x.name} held the string tight."]
    k = rng.randint(3, len(out))
    return out[:k]


def story_shop(rng):
    x = person(rng)
    items = rng.sample(FRUITS, 2)
    n1, n2 = rng.randint(1, 6), rng.randint(1, 6)
    cost = rng.randint(2, 9)
    out = [f"{x.name} went to the shop.",
           f"{cap(x.s)} bought {num_noun(n1, items[0])} and {num_noun(n2, items[1])}.",
           f"{cap(x.s)} paid {NUMS[cost]} dollars.",
           f"The man in the shop gave {x.o} a bag.",
           f"{x.name} put the {items[0][0] if n1 == 1 else items[0][1]} in the bag."]
    if rng.random() < 0.5:
        out.append(f"At home {x.s} gave one {items[1][0]} to {x.p} {rng.choice(['brother', 'sister', 'mother', 'father'])}.")
    return out


def story_family(rng):
    x = person(rng)
    sib_f = rng.random() < 0.5
    sib = person(rng, (x.name,))
    while (sib.s == "she") != sib_f:
        sib = person(rng, (x.name,))
    rel = "sister" if sib_f else "brother"
    age1 = rng.randint(4, 12)
    age2 = age1 + rng.choice([-3, -2, -1, 1, 2, 3])
    older = "older" if age2 > age1 else "younger"
    out = [f"{x.name} has a {rel}.",
           f"{x.p.capitalize()} {rel} is called {sib.name}.",
           f"{x.name} is {NUMS[age1]} years old.",
           f"{sib.name} is {NUMS[age2]} years old.",
           f"{sib.name} is {older} than {x.name}."]
    if rng.random() < 0.6:
        out.append(f"{x.name} and {x.p} {rel} live in a {rng.choice(['big', 'small', 'white', 'red'])} house.")
    if rng.random() < 0.4:
        out.append(f"They have a {rng.choice(['dog', 'cat', 'bird', 'rabbit'])}.")
    return out


GENERATORS = [
    (story_lost_thing, 8), (story_animal, 10), (story_agreement, 8), (story_friends, 7),
    (story_colors, 8), (story_color_question, 4), (story_opposites, 7), (story_days, 6),
    (story_months, 4), (story_counting, 7), (story_numbers, 4), (story_bank_river, 5),
    (story_bank_money, 5), (story_bat_animal, 4), (story_bat_baseball, 4), (story_cause, 7),
    (story_day_routine, 5), (story_scene, 6), (story_can, 4), (story_weather, 5),
    (story_shop, 4), (story_family, 5),
]


def generate(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    fns = [f for f, _ in GENERATORS]
    weights = [w for _, w in GENERATORS]
    stories = []
    while len(stories) < n:
        fn = rng.choices(fns, weights)[0]
        s = fn(rng)
        if 3 <= len(s) <= 8:
            stories.append(s)
    return stories


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "www" / "corpora" / "simple.txt"))
    ap.add_argument("--stories", type=int, default=STORIES)
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    stories = generate(args.stories, args.seed)
    text = "\n\n".join("\n".join(s) for s in stories) + "\n"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    words = text.split()
    vocab = {w.strip('.,:;!?"').lower() for w in words}
    print(f"{out}: {len(text.encode())} bytes, {len(stories)} documents, "
          f"{sum(len(s) for s in stories)} sentences, {len(words)} words, {len(vocab)} distinct words")


if __name__ == "__main__":
    main()
