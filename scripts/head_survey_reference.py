#!/usr/bin/env python3
"""HF reference for the head survey (`bertscope heads`, src/explain/head_stats.rs), written from
the definitions in docs/heads.md, independently of the Rust code.

Makes tests/fixtures/head_survey_hf.json: for three models (odd72: 2 layers x 3 heads of 24;
roberta_mlm: byte-level BPE, <s> and </s>, 40 tokens at most; the bundled bert-tiny), the lines
given to the survey (one a sentence pair, split by a tab; one longer than roberta_mlm's 40 tokens,
cut) and every head's statistics, from HF's eager attention. The attention comes from ONE
right-padded batch of all the lines (attention_mask 0 on the padding): padded rows and columns
are left out, so the test also shows that padding does not count.

Needs (CPU, no network): pip install torch "transformers>=5"
Usage: python3 scripts/head_survey_reference.py
"""
import json, math, os, sys
import torch
from transformers import AutoModel, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUNCT = {".", ",", ";", ":", "!", "?", "'", '"', "(", ")", "-", "`", "\u2019"}
LINES = [
    "the cat sat on the mat.",
    "",  # empty lines are skipped, and still numbered
    "where did the dog go? it ran off, (quickly) - and hid!",
    "a b",
    "the man went to the store\tto buy some milk.",
    "shivas was hit by a bus because he crossed the street.",
    " ".join(["the long sentence goes on and on, with words"] * 8) + ".",
]
MODELS = {
    "odd72": "tests/fixtures/models/odd72",
    "roberta_mlm": "tests/fixtures/models/roberta_mlm",
    "bert_tiny": "www/models/bert-tiny",
}


def stats(attn, kinds):
    """attn[l][h]: list over sentences of (T, T) tensors; kinds: list over sentences of lists."""
    out = []
    for l, layer in enumerate(attn):
        for h, mats in enumerate(layer):
            s = dict(cls=0.0, sep=0.0, prev=0.0, next=0.0, self=0.0, punct=0.0, entropy=0.0, entropy_share=0.0)
            c = dict(mass=0.0, prev=0.0, next=0.0, self=0.0, punct=0.0, entropy=0.0)
            n = dict(rows=0, nb=0, share=0, c=0, cp=0, cn=0)
            for a, k in zip(mats, kinds):
                a = a.double()
                t = len(k)
                ordn = [x in ("word", "punct") for x in k]
                for i in range(t):
                    row = a[i]
                    n["rows"] += 1
                    s["cls"] += row[0].item()
                    s["sep"] += sum(row[j].item() for j in range(t) if k[j] == "sep")
                    s["punct"] += sum(row[j].item() for j in range(t) if k[j] == "punct")
                    s["self"] += row[i].item()
                    if i >= 1:
                        s["prev"] += row[i - 1].item()
                    if i + 1 < t:
                        s["next"] += row[i + 1].item()
                    ent = -sum(p * math.log(p) for p in row.tolist() if p > 0)
                    s["entropy"] += ent
                    if t > 1:
                        s["entropy_share"] += ent / math.log(t)
                        n["share"] += 1
                    if not ordn[i]:
                        continue
                    n["c"] += 1
                    has_prev, has_next = i >= 1 and ordn[i - 1], i + 1 < t and ordn[i + 1]
                    n["cp"] += has_prev
                    n["cn"] += has_next
                    mass = sum(row[j].item() for j in range(t) if ordn[j])
                    c["mass"] += mass
                    if mass <= 0:
                        continue
                    q = [row[j].item() / mass for j in range(t)]
                    if has_prev:
                        c["prev"] += q[i - 1]
                    if has_next:
                        c["next"] += q[i + 1]
                    c["self"] += q[i]
                    c["punct"] += sum(q[j] for j in range(t) if k[j] == "punct")
                    c["entropy"] += -sum(q[j] * math.log(q[j]) for j in range(t) if ordn[j] and q[j] > 0)
                n["nb"] += t - 1
            m = lambda x, d: x / d if d else 0.0
            out.append(dict(layer=l, head=h,
                            cls=m(s["cls"], n["rows"]), sep=m(s["sep"], n["rows"]),
                            prev=m(s["prev"], n["nb"]), next=m(s["next"], n["nb"]),
                            self=m(s["self"], n["rows"]), punct=m(s["punct"], n["rows"]),
                            entropy=m(s["entropy"], n["rows"]), entropy_share=m(s["entropy_share"], n["share"]),
                            content=dict(mass=m(c["mass"], n["c"]), prev=m(c["prev"], n["cp"]), next=m(c["next"], n["cn"]),
                                         self=m(c["self"], n["c"]), punct=m(c["punct"], n["c"]),
                                         entropy=m(c["entropy"], n["c"]))))
    return out


def survey(folder):
    path = os.path.join(ROOT, folder)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
    lines = [l for l in LINES if l.strip()]
    firsts = [l.split("\t")[0] for l in lines]
    pairs = [l.split("\t")[1] if "\t" in l else None for l in lines]
    max_len = tok.model_max_length if tok.model_max_length < 10**6 else model.config.max_position_embeddings
    enc = [tok(a, b, truncation=True, max_length=max_len) if b else tok(a, truncation=True, max_length=max_len) for a, b in zip(firsts, pairs)]
    batch = tok.pad([{k: e[k] for k in ("input_ids", "attention_mask") + (("token_type_ids",) if "token_type_ids" in e else ())} for e in enc], return_tensors="pt")
    with torch.no_grad():
        out = model(**batch, output_attentions=True)
    specials = set(tok.all_special_ids)
    kinds = []
    for e in enc:
        ids = e["input_ids"]
        k = []
        for i, t in enumerate(ids):
            piece = tok.convert_ids_to_tokens(t)
            text = piece.replace("\u0120", "").strip() if piece is not None else ""
            if i == 0 and t == tok.cls_token_id:
                k.append("cls")
            elif t == tok.sep_token_id:
                k.append("sep")
            elif t in specials:
                k.append("special")
            elif text in PUNCT:
                k.append("punct")
            else:
                k.append("word")
        kinds.append(k)
    attn = [[[layer[b, h, : len(kinds[b]), : len(kinds[b])] for b in range(len(enc))] for h in range(layer.shape[1])] for layer in out.attentions]
    truncated = sum(len(tok(a, b)["input_ids"] if b else tok(a)["input_ids"]) > max_len for a, b in zip(firsts, pairs))
    return dict(model=folder, sentences=len(lines), queries=sum(len(k) for k in kinds), truncated=truncated,
                kinds=kinds, heads=stats(attn, kinds))


def main():
    import transformers
    ref = dict(lines=LINES, generator="scripts/head_survey_reference.py",
               versions=dict(torch=torch.__version__, transformers=transformers.__version__),
               models={name: survey(folder) for name, folder in MODELS.items()})
    dst = os.path.join(ROOT, "tests/fixtures/head_survey_hf.json")
    with open(dst, "w") as f:
        json.dump(ref, f, indent=1)
    for name, r in ref["models"].items():
        print(name, r["sentences"], r["queries"], r["truncated"], file=sys.stderr)


if __name__ == "__main__":
    main()
