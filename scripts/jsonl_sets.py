"""What the data-set scripts share: a tenth of a shuffled list held out, and the train / test
JSON-lines files written with a line of counts and their SHA-256 (Python 3 standard library)."""

import hashlib
import json
import random
from pathlib import Path


def hold_out_tenth(items, seed):
    """items shuffled by seed: (test = the first tenth, train = the rest)."""
    items = list(items)
    random.Random(seed).shuffle(items)
    n_test = len(items) // 10
    return items[:n_test], items[n_test:]


def write_sets(out: Path, sets, count):
    """Writes each (name, items) of sets to out/name.jsonl, one JSON object a line, and prints
    its lines, count(items) (a short description) and its SHA-256."""
    out.mkdir(parents=True, exist_ok=True)
    for name, items in sets:
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items)
        (out / f"{name}.jsonl").write_text(body, encoding="utf-8")
        sha = hashlib.sha256(body.encode("utf-8")).hexdigest()
        print(f"{name}.jsonl: {len(items)} lines ({count(items)}), sha256 {sha}")
