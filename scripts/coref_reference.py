#!/usr/bin/env python3
"""HF reference for the coreference probe (`bertscope coref`, src/app/coref_probe.rs): for the
bundled bert-tiny and distil_mlm (a ~150-word vocabulary: most words are [UNK], found by offsets), every
head's share of www/datasets/coref/{dev,test}.jsonl sentences where the pronoun's attention to the
antecedent's first piece exceeds its attention to the distractor's, from HF's eager attention; and
the smallest margin |A[p, a] - A[p, d]| seen (a near-tie could flip in float32).

Makes tests/fixtures/coref_hf.json.  Needs: pip install torch "transformers>=5"
Usage: python3 scripts/coref_reference.py
"""
import json, os
import torch
from transformers import AutoModel, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"bert_tiny": "www/models/bert-tiny", "distil_mlm": "tests/fixtures/models/distil_mlm"}


def first_piece(offsets, seq_ids, at):
    for i, ((s, e), sid) in enumerate(zip(offsets, seq_ids)):
        if sid == 0 and s <= at < max(e, s + 1):
            return i
    raise ValueError(at)


def shares(tok, model, path):
    items = [json.loads(l) for l in open(os.path.join(ROOT, path)) if l.strip()]
    nl, nh = model.config.num_hidden_layers, model.config.num_attention_heads
    hits = [[0] * nh for _ in range(nl)]
    margin = 1.0
    for it in items:
        enc = tok(it["text"], return_offsets_mapping=True)
        offs, sids = enc["offset_mapping"], enc.sequence_ids()
        p, a, d = (first_piece(offs, sids, it[k][0]) for k in ("pronoun", "antecedent", "distractor"))
        with torch.no_grad():
            att = model(input_ids=torch.tensor([enc["input_ids"]]), output_attentions=True).attentions
        for l in range(nl):
            for h in range(nh):
                x, y = att[l][0, h, p, a].item(), att[l][0, h, p, d].item()
                hits[l][h] += x > y
                margin = min(margin, abs(x - y))
    return [[c / len(items) for c in row] for row in hits], margin


def main():
    out = {}
    for name, folder in MODELS.items():
        path = os.path.join(ROOT, folder)
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
        dev, m1 = shares(tok, model, "www/datasets/coref/dev.jsonl")
        test, m2 = shares(tok, model, "www/datasets/coref/test.jsonl")
        out[name] = dict(model=folder, dev=dev, test=test, min_margin=min(m1, m2))
    with open(os.path.join(ROOT, "tests/fixtures/coref_hf.json"), "w") as f:
        json.dump(dict(generator="scripts/coref_reference.py", models=out), f, indent=1)
    print({k: v["min_margin"] for k, v in out.items()})


if __name__ == "__main__":
    main()
