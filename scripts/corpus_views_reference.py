#!/usr/bin/env python3
"""HF reference for the corpus views (`bertscope search`, `bertscope qk`, src/app/corpus_views.rs),
from the definitions in docs/heads.md, independently of the Rust code.

Makes tests/fixtures/corpus_views_hf.json: for the bundled bert-tiny and odd72 (3 heads of 24),
on the first 40 lines of www/corpora/survey-sample.txt (one line left empty, so line numbers skip
it): the top-10 corpus tokens (non-special tokens; line, position, cosine) for one token of a
query sentence by its hidden state after layer 1, and by head 1 of layer 2's attention output
before the output projection (HF BertSelfAttention's context); and head 0 of layer 1's queries and
keys (keys shifted to the queries' mean) projected on two principal components: the explained
variance ratios and the first 30 points of each kind (coordinates up to each axis's sign).

Needs (CPU, no network): pip install torch "transformers>=5" numpy
Usage: python3 scripts/corpus_views_reference.py
"""
import json, os
import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"bert_tiny": "www/models/bert-tiny", "odd72": "tests/fixtures/models/odd72"}
QUERY, POSITION, K = "the river bank was muddy after the rain.", 3, 10


def corpus():
    lines = open(os.path.join(ROOT, "www/corpora/survey-sample.txt"), encoding="utf-8").read().split("\n")[:40]
    lines[5] = ""
    return lines


def run(tok, model, text, layer):
    """(ids, special mask, hidden_states, context of `layer` (1-based), q and k of `layer`)."""
    enc = tok(text, return_special_tokens_mask=True, truncation=True)
    caught = {}
    att = model.encoder.layer[layer - 1].attention.self
    hooks = [att.register_forward_hook(lambda m, i, o: caught.__setitem__("ctx", o[0])),
             att.query.register_forward_hook(lambda m, i, o: caught.__setitem__("q", o)),
             att.key.register_forward_hook(lambda m, i, o: caught.__setitem__("k", o))]
    with torch.no_grad():
        out = model(input_ids=torch.tensor([enc["input_ids"]]), output_hidden_states=True)
    for h in hooks:
        h.remove()
    return enc, [h[0].double().numpy() for h in out.hidden_states], caught["ctx"][0].reshape(len(enc["input_ids"]), -1).double().numpy(), caught["q"][0].double().numpy(), caught["k"][0].double().numpy()


def search(tok, model, lines, vec_of):
    q = vec_of(QUERY)[POSITION]
    q = q / np.linalg.norm(q)
    found = []
    for li, text in enumerate(lines):
        if not text.strip():
            continue
        enc, vs = vec_of(text, with_enc=True)
        for p, sp in enumerate(enc["special_tokens_mask"]):
            if sp:
                continue
            v = vs[p] / max(np.linalg.norm(vs[p]), 1e-12)
            found.append((-float(q @ v), li, p))
    found.sort()
    return [dict(line=li, position=p, score=-s) for s, li, p in found[:K]]


def main():
    import transformers
    lines = corpus()
    out = {}
    for name, folder in MODELS.items():
        path = os.path.join(ROOT, folder)
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
        nh = model.config.num_attention_heads
        hd = model.config.hidden_size // nh

        def hidden1(text, with_enc=False):
            enc, hs, _, _, _ = run(tok, model, text, 1)
            return (enc, hs[1]) if with_enc else hs[1]

        def head21(text, with_enc=False):
            enc, _, ctx, _, _ = run(tok, model, text, 2)
            v = ctx[:, 1 * hd:2 * hd]
            return (enc, v) if with_enc else v

        qs, ks = [], []
        for text in lines:
            if not text.strip():
                continue
            enc, _, _, q, k = run(tok, model, text, 1)
            for p, sp in enumerate(enc["special_tokens_mask"]):
                if not sp:
                    qs.append(q[p, 0:hd])
                    ks.append(k[p, 0:hd])
        qs, ks = np.array(qs), np.array(ks)
        x = np.concatenate([qs - qs.mean(0), ks - ks.mean(0)])
        cov = x.T @ x / (len(x) - 1)
        w, v = np.linalg.eigh(cov)
        order = np.argsort(w)[::-1]
        w, v = w[order], v[:, order]
        proj = x @ v[:, :2]
        m = len(qs)
        out[name] = dict(model=folder, layer_search=search(tok, model, lines, hidden1), head_search=search(tok, model, lines, head21),
                         explained=(w[:2] / w.sum()).tolist(), tokens=m,
                         queries=proj[:30].tolist(), keys=proj[m:m + 30].tolist())
    ref = dict(generator="scripts/corpus_views_reference.py", query=QUERY, position=POSITION, k=K, lines=lines,
               versions=dict(torch=torch.__version__, transformers=transformers.__version__), models=out)
    with open(os.path.join(ROOT, "tests/fixtures/corpus_views_hf.json"), "w") as f:
        json.dump(ref, f, indent=1)
    for n, r in out.items():
        print(n, r["tokens"], r["explained"], r["layer_search"][0], r["head_search"][0])


if __name__ == "__main__":
    main()
