#!/usr/bin/env python3
"""HF reference for the logit lens (`bertscope fill --layers`, src/infer/lens.rs): the masked-LM
head (BertForMaskedLM.cls, RobertaForMaskedLM.lm_head) applied to each of HF's hidden_states
(0: the embeddings' output, l: after layer l) at each mask, softmax over the vocabulary.

Makes tests/fixtures/logit_lens_hf.json: for odd72, roberta_mlm and the bundled bert-tiny, three
inputs (one mask; two masks; a sentence pair), per mask per layer the top-5 (id, prob) and the
probability of the last layer's first guess.

Needs (CPU, no network): pip install torch "transformers>=5"
Usage: python3 scripts/logit_lens_reference.py
"""
import json, os
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = [("the cat sat on the [MASK].", None), ("[MASK] dog ran to the [MASK] quickly.", None), ("where is the cat?", "the cat is on the [MASK].")]
MODELS = {"odd72": "tests/fixtures/models/odd72", "roberta_mlm": "tests/fixtures/models/roberta_mlm", "bert_tiny": "www/models/bert-tiny"}
K = 5


def lens(folder):
    path = os.path.join(ROOT, folder)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForMaskedLM.from_pretrained(path, attn_implementation="eager").eval()
    head = model.cls if hasattr(model, "cls") else model.lm_head
    out = []
    for text, pair in INPUTS:
        text = text.replace("[MASK]", tok.mask_token)
        pair = pair.replace("[MASK]", tok.mask_token) if pair else None
        enc = tok(text, pair, return_tensors="pt") if pair else tok(text, return_tensors="pt")
        with torch.no_grad():
            hs = model(**enc, output_hidden_states=True).hidden_states
            masks = (enc["input_ids"][0] == tok.mask_token_id).nonzero().flatten().tolist()
            entry = dict(text=text, pair=pair, masks=[])
            for pos in masks:
                probs = [torch.softmax(head(h[0, pos : pos + 1]).double(), -1)[0] for h in hs]
                answer = int(probs[-1].argmax())
                layers = []
                for l, p in enumerate(probs):
                    v, i = p.topk(K)
                    layers.append(dict(layer=l, ids=i.tolist(), probs=v.tolist(), answer_prob=p[answer].item()))
                entry["masks"].append(dict(position=pos, layers=layers))
        out.append(entry)
    return dict(model=folder, inputs=out)


def main():
    import transformers
    ref = dict(generator="scripts/logit_lens_reference.py", k=K,
               versions=dict(torch=torch.__version__, transformers=transformers.__version__),
               models={name: lens(folder) for name, folder in MODELS.items()})
    with open(os.path.join(ROOT, "tests/fixtures/logit_lens_hf.json"), "w") as f:
        json.dump(ref, f, indent=1)


if __name__ == "__main__":
    main()
