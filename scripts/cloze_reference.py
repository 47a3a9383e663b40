#!/usr/bin/env python3
"""Score a Hugging Face masked-LM folder on the cloze benchmark (benches/cloze.jsonl).

Each line of the set is {"text": "... [MASK] ...", "answers": ["w1", ...]}: one
[MASK] per text, 1-6 acceptable answers, each a whole-word token of the
uncased vocabulary. top-1: the argmax at the mask is an answer; top-5: any of
the 5 highest logits is an answer. Eval mode (no dropout), CPU, float32.

Usage:
  python3 scripts/cloze_reference.py --model DIR [--set benches/cloze.jsonl] [--items]
  python3 scripts/cloze_reference.py --check [--model DIR] [--vocab FILE]

--check only validates the set (needs no torch): every text tokenizes to
exactly one [MASK] with the model's tokenizer, every answer is a lowercase
whole-word token of the vocabulary (default tests/fixtures/models/tiny_vocab/vocab.txt),
1-6 distinct answers per line. Scoring validates against the model's own
tokenizer first and stops on a bad line.

Needs: torch, transformers (scoring), tokenizers (checking; it comes with
transformers). No network: HF_HUB_OFFLINE=1 and local files only.
Prints one JSON object: {"model", "set", "n", "top1", "top5", "top1_correct", "top5_correct"}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "www" / "models" / "default"
DEFAULT_SET = ROOT / "benches" / "cloze.jsonl"
DEFAULT_VOCAB = ROOT / "tests" / "fixtures" / "models" / "tiny_vocab" / "vocab.txt"
MASK = "[MASK]"


def load_set(path: Path) -> list[dict]:
    items = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        d = json.loads(line)
        if set(d) != {"text", "answers"}:
            sys.exit(f"{path}:{i}: keys must be text, answers (got {sorted(d)})")
        d["line"] = i
        items.append(d)
    return items


def validate(items: list[dict], path: Path, vocab: dict[str, int], encode) -> None:
    """encode(text) -> list of token strings (with [CLS]/[SEP])."""
    errors = []
    seen = set()
    for d in items:
        where = f"{path}:{d['line']}"
        text, answers = d["text"], d["answers"]
        if text in seen:
            errors.append(f"{where}: duplicate text")
        seen.add(text)
        if text.count(MASK) != 1:
            errors.append(f"{where}: text must contain exactly one {MASK}")
        toks = encode(text)
        if toks.count(MASK) != 1:
            errors.append(f"{where}: tokenizes to {toks.count(MASK)} {MASK} tokens")
        if not (1 <= len(answers) <= 6) or len(set(answers)) != len(answers):
            errors.append(f"{where}: need 1-6 distinct answers, got {answers}")
        for a in answers:
            if a != a.lower() or a.startswith("##") or a not in vocab or a.startswith("["):
                errors.append(f"{where}: answer {a!r} is not a lowercase whole-word vocab token")
    if errors:
        sys.exit("\n".join(errors))


def check(args) -> None:
    from tokenizers import Tokenizer

    vocab_lines = Path(args.vocab).read_text(encoding="utf-8").split("\n")
    vocab = {w: i for i, w in enumerate(vocab_lines) if w}
    tok = Tokenizer.from_file(str(Path(args.model) / "tokenizer.json"))
    tvocab = tok.get_vocab()
    missing = [w for w in vocab if tvocab.get(w) != vocab[w]]
    if missing:
        sys.exit(f"{args.vocab} and {args.model}/tokenizer.json disagree on {len(missing)} tokens")
    items = load_set(Path(args.set))
    validate(items, Path(args.set), vocab, lambda t: tok.encode(t).tokens)
    n_ans = sum(len(d["answers"]) for d in items)
    print(json.dumps({"set": str(args.set), "n": len(items), "answers": n_ans, "ok": True}))


def score(args) -> None:
    import torch
    from transformers import AutoTokenizer, BertForMaskedLM

    torch.manual_seed(0)
    model_dir = Path(args.model)
    tok = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = BertForMaskedLM.from_pretrained(model_dir, local_files_only=True, dtype=torch.float32)
    model.eval()
    items = load_set(Path(args.set))
    vocab = tok.get_vocab()
    validate(items, Path(args.set), vocab, lambda t: tok.convert_ids_to_tokens(tok(t)["input_ids"]))

    mask_id = tok.mask_token_id
    top1 = top5 = 0
    rows = []
    bs = 32
    with torch.no_grad():
        for start in range(0, len(items), bs):
            chunk = items[start : start + bs]
            enc = tok([d["text"] for d in chunk], padding=True, return_tensors="pt")
            logits = model(**enc).logits  # (B, T, V)
            for b, d in enumerate(chunk):
                pos = (enc["input_ids"][b] == mask_id).nonzero().item()
                top = torch.topk(logits[b, pos], 5).indices.tolist()
                preds = tok.convert_ids_to_tokens(top)
                ok1 = preds[0] in d["answers"]
                ok5 = any(p in d["answers"] for p in preds)
                top1 += ok1
                top5 += ok5
                rows.append({"line": d["line"], "text": d["text"], "answers": d["answers"],
                             "top5": preds, "top1_ok": ok1, "top5_ok": ok5})
    n = len(items)
    out = {"model": str(args.model), "set": str(args.set), "n": n,
           "top1": round(top1 / n, 4), "top5": round(top5 / n, 4),
           "top1_correct": top1, "top5_correct": top5}
    if args.items:
        for r in rows:
            print(json.dumps(r), file=sys.stderr)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(DEFAULT_MODEL), help="HF model folder (config.json, weights, tokenizer)")
    ap.add_argument("--set", default=str(DEFAULT_SET))
    ap.add_argument("--check", action="store_true", help="only validate the set (no torch)")
    ap.add_argument("--vocab", default=str(DEFAULT_VOCAB), help="vocab.txt for --check")
    ap.add_argument("--items", action="store_true", help="also print each item's top 5 (JSON lines, stderr)")
    args = ap.parse_args()
    if args.check:
        check(args)
    else:
        score(args)


if __name__ == "__main__":
    main()
