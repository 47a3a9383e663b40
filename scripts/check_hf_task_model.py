#!/usr/bin/env python3
"""Loads a folder that `bertscope finetune` (or the page) saved with HF transformers'
AutoModelFor... classes and prints, for each text, what `bertscope classify|tag|answer` prints for it,
so the two can be compared: the label probabilities (classify), the tags (tag), or the best span's
start and end logits (answer).

    python3 scripts/check_hf_task_model.py DIR "a text" ["another text" ...]
Needs: pip install torch "transformers>=5" (CPU is enough; no network: the folder is read as it is).
"""

import json
import sys

import torch
from transformers import (AutoModelForQuestionAnswering, AutoModelForSequenceClassification,
                          AutoModelForTokenClassification, AutoTokenizer)


def main():
    d, texts = sys.argv[1], sys.argv[2:]
    arch = json.load(open(f"{d}/config.json"))["architectures"][0]
    cls = {"BertForSequenceClassification": AutoModelForSequenceClassification,
           "BertForTokenClassification": AutoModelForTokenClassification,
           "BertForQuestionAnswering": AutoModelForQuestionAnswering}[arch]
    model = cls.from_pretrained(d).eval()
    tok = AutoTokenizer.from_pretrained(d)
    for text in texts:
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            out = model(**enc)
        if arch == "BertForSequenceClassification":
            probs = out.logits.softmax(-1)[0].tolist()
            print(json.dumps({"text": text, "labels": {model.config.id2label[i]: p for i, p in enumerate(probs)}}))
        elif arch == "BertForTokenClassification":
            ids = out.logits.argmax(-1)[0].tolist()
            print(json.dumps({"text": text, "tags": [model.config.id2label[i] for i in ids]}))
        else:
            print(json.dumps({"text": text, "start_logits": out.start_logits[0].tolist(), "end_logits": out.end_logits[0].tolist()}))


if __name__ == "__main__":
    main()
