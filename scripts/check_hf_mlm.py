#!/usr/bin/env python3
"""Check that Hugging Face transformers' BertForMaskedLM gives a shipped model's predictions.

Loads the folder with transformers (float32 on the CPU: the f16 weights are widened as bertscope
widens them), runs the sentences below and the first --cloze lines of benches/cloze.jsonl, and
compares, at each [MASK], the top-5 tokens and their probabilities with `bertscope fill` on the
same folder. Writes what HF gave to --out (a fixture: tests/shipped_model.rs checks the engine
against it without Python). Exits 1, naming the sentence, on any difference.

Usage: python3 scripts/check_hf_mlm.py [--model www/models/minilm-l6-mlm] [--out FILE]
Needs torch and transformers (CPU); no network (local files only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
SENTENCES = [
    "the capital of france is [MASK].",
    "shivas was hit by a bus because [MASK] crossed the street.",
    "the man went to the [MASK] to buy milk.",
    "the cat sat on the [MASK].",
    "she opened the [MASK] and walked into the [MASK].",
]
PROB_TOL = 1e-4


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "www/models/minilm-l6-mlm"))
    ap.add_argument("--bertscope", default=str(ROOT / "target/release/bertscope"))
    ap.add_argument("--cloze", type=int, default=20, help="lines of benches/cloze.jsonl to add")
    ap.add_argument("--out", default=str(ROOT / "tests/fixtures/shipped_minilm_hf.json"))
    a = ap.parse_args()

    import torch
    from transformers import AutoTokenizer, BertForMaskedLM

    torch.set_num_threads(1)
    tok = AutoTokenizer.from_pretrained(a.model, local_files_only=True)
    model = BertForMaskedLM.from_pretrained(a.model, local_files_only=True, dtype=torch.float32).eval()
    cloze = [json.loads(l)["text"] for l in (ROOT / "benches/cloze.jsonl").read_text().splitlines() if l.strip()]
    texts = SENTENCES + cloze[: a.cloze]
    cases, bad = [], []
    for text in texts:
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            probs = model(**enc).logits[0].softmax(-1)
        ids = enc["input_ids"][0].tolist()
        hf = []
        for pos in [i for i, t in enumerate(ids) if t == tok.mask_token_id]:
            p, top = torch.topk(probs[pos], 5)
            hf.append({"position": pos, "ids": top.tolist(), "tokens": tok.convert_ids_to_tokens(top.tolist()),
                       "probs": [round(float(x), 7) for x in p]})
        ours = json.loads(subprocess.run([a.bertscope, "fill", "--model", a.model, "--text", text, "--top-k", "5"],
                                         check=True, capture_output=True, text=True).stdout)
        if ours["tokens"] != tok.convert_ids_to_tokens(ids):
            bad.append(f"{text!r}: tokens {ours['tokens']} vs HF {tok.convert_ids_to_tokens(ids)}")
        for h, o in zip(hf, ours["masks"], strict=True):
            oid = [p["id"] for p in o["predictions"]]
            op = [p["prob"] for p in o["predictions"]]
            dp = max(abs(x - y) for x, y in zip(h["probs"], op))
            # two guesses within the tolerance may come in either order
            same = oid == h["ids"] or (set(oid) == set(h["ids"]) and dp < PROB_TOL)
            if not same or h["position"] != o["position"] or dp > PROB_TOL:
                bad.append(f"{text!r} at {h['position']}: ours {oid} {op} vs HF {h['ids']} {h['probs']}")
        cases.append({"text": text, "masks": hf})
        print(json.dumps({"text": text, "hf_top5": [m["tokens"] for m in hf]}))
    if bad:
        sys.exit("bertscope and HF differ:\n" + "\n".join(bad))
    Path(a.out).write_text(json.dumps({"model": os.path.relpath(a.model, ROOT), "prob_tol": PROB_TOL, "cases": cases}, indent=1) + "\n")
    print(f"HF BertForMaskedLM and bertscope agree on {len(texts)} sentences (top-5, probabilities within {PROB_TOL}); wrote {a.out}")


if __name__ == "__main__":
    main()
