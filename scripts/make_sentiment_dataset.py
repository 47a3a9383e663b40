#!/usr/bin/env python3
"""The sentiment data set for fine-tuning: the UCI Sentiment Labelled Sentences (Kotzias et al.
2015, CC BY 4.0) as shipped in npm sentiment@5.0.2's test fixtures, 1,000 reviews from each of
Amazon, IMDb and Yelp labelled 0 / 1. Written as JSON lines {"text": .., "label": "negative" |
"positive"}: texts stripped of surrounding whitespace, exact duplicates dropped, shuffled with a
fixed seed, the last 10% of each source (stratified by source) held out as test.jsonl.

    python3 scripts/make_sentiment_dataset.py --fixtures DIR --out www/datasets/sentiment
"""

import argparse
import json
import random
from pathlib import Path

from jsonl_sets import hold_out_tenth, write_sets

LABELS = {0: "negative", 1: "positive"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    a = ap.parse_args()
    train, test, seen = [], [], set()
    for source in ("amazon", "imdb", "yelp"):
        rows = json.loads((a.fixtures / f"{source}.json").read_text(encoding="utf-8"))
        items = []
        for r in rows:
            text = " ".join(r["text"].split())
            if not text or text.lower() in seen or r["class"] not in LABELS:
                continue
            seen.add(text.lower())
            items.append({"text": text, "label": LABELS[r["class"]]})
        held, kept = hold_out_tenth(items, f"bertscope-sentiment-{source}")
        test += held
        train += kept
    random.Random("bertscope-sentiment").shuffle(train)
    random.Random("bertscope-sentiment-test").shuffle(test)
    write_sets(a.out, (("train", train), ("test", test)), lambda xs: f"{sum(x['label'] == 'positive' for x in xs)} positive")


if __name__ == "__main__":
    main()
