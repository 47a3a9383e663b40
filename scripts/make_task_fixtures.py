#!/usr/bin/env python3
"""PyTorch / HF reference fixtures for bertscope's task heads (fine-tuned BERTs).

What it makes (relative to the repo root):

  tests/fixtures/models/{task_seqcls, task_regression, task_tokcls, task_qa}/
      small random models (every parameter perturbed with N(0, 0.2) noise) of
      BertForSequenceClassification (3 labels with id2label names),
      BertForSequenceClassification with num_labels = 1 (regression, MSE),
      BertForTokenClassification (5 BIO tags) and BertForQuestionAnswering,
      saved with save_pretrained, plus the small vocab.txt of the other fixtures.

  tests/fixtures/ref/task_<name>.safetensors
      a padded batch of two (a sentence pair for the sequence classifier and QA),
      the labels (labels; or start_positions / end_positions), HF's outputs
      (hidden_states.{i}, logits or start_logits / end_logits), the loss, and
      grad.<name> of every parameter (eval mode: dropout off).

Needs (CPU only, no network):  pip install torch "transformers>=5" safetensors numpy
Rerun from the repo root:      python3 scripts/make_task_fixtures.py
Deterministic (fixed seeds, one thread); tests/task_reference.rs reads the files.
"""

import json
import shutil
from pathlib import Path

import numpy as np
from make_fixtures import MODELS, REF, perturb, save_canonical  # noqa: E402 (sorted metadata; the shared noise)
import torch
import transformers
from transformers import BertConfig, BertForQuestionAnswering, BertForSequenceClassification, BertForTokenClassification

VOCAB = (MODELS / "relu_tiny" / "vocab.txt").read_text()
NOISE_STD = 0.2
VERSIONS = f"torch {torch.__version__}; transformers {transformers.__version__}"

TASKS = {
    # name: (class, config kwargs, seed, pair input)
    "seqcls": (BertForSequenceClassification,
               dict(hidden_size=36, num_hidden_layers=2, num_attention_heads=3, intermediate_size=50,
                    hidden_act="gelu", num_labels=3,
                    id2label={0: "negative", 1: "neutral", 2: "positive"},
                    label2id={"negative": 0, "neutral": 1, "positive": 2}), 2001, True),
    "regression": (BertForSequenceClassification,
                   dict(hidden_size=24, num_hidden_layers=1, num_attention_heads=2, intermediate_size=30,
                        hidden_act="relu", num_labels=1), 2002, False),
    "tokcls": (BertForTokenClassification,
               dict(hidden_size=40, num_hidden_layers=2, num_attention_heads=2, intermediate_size=44,
                    hidden_act="gelu_new", layer_norm_eps=1e-5, num_labels=5,
                    id2label={0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"},
                    label2id={"O": 0, "B-PER": 1, "I-PER": 2, "B-LOC": 3, "I-LOC": 4}), 2003, False),
    "qa": (BertForQuestionAnswering,
           dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=40,
                hidden_act="gelu"), 2004, True),
}


def batch(rng, vocab_size, pair):
    """Two sequences of T = 9: [CLS] a [SEP] (b [SEP]); the second padded after 6 tokens."""
    T, lens = 9, [9, 6]
    ids = np.zeros((2, T), dtype=np.int64)
    tt = np.zeros((2, T), dtype=np.int64)
    am = np.zeros((2, T), dtype=np.int64)
    for i, n in enumerate(lens):
        body = rng.integers(5, vocab_size, size=n)
        body[0], body[n - 1] = 2, 3  # [CLS] ... [SEP]
        if pair:
            cut = n // 2
            body[cut] = 3
            tt[i, cut + 1:n] = 1
        ids[i, :n], am[i, :n] = body, 1
    return ids, tt, am


def make(name):
    cls, kw, seed, pair = TASKS[name]
    d = MODELS / f"task_{name}"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(VOCAB.splitlines()), max_position_embeddings=32, pad_token_id=0,
                     attn_implementation="eager", **kw)
    model = cls(cfg)
    perturb(model, seed + 50_000)
    model.save_pretrained(d, safe_serialization=True)
    (d / "vocab.txt").write_text(VOCAB)
    (d / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}) + "\n")
    model = cls.from_pretrained(d, attn_implementation="eager", dtype=torch.float32).eval()

    rng = np.random.default_rng(seed)
    ids, tt, am = batch(rng, cfg.vocab_size, pair)
    t = {"input_ids": torch.as_tensor(ids), "token_type_ids": torch.as_tensor(tt), "attention_mask": torch.as_tensor(am)}
    kwargs = dict(t, output_hidden_states=True, return_dict=True)
    if name == "seqcls":
        t["labels"] = torch.tensor([2, 0])
    elif name == "regression":
        t["labels"] = torch.tensor([0.75, -1.25])
    elif name == "tokcls":
        labels = torch.as_tensor(rng.integers(0, 5, size=ids.shape))
        labels[torch.as_tensor(am) == 0] = -100
        labels[:, 0] = -100  # [CLS], as HF's examples label only word pieces
        labels[0, 4] = -100  # a continuation piece
        t["labels"] = labels
    else:  # qa: the second start lies past the sequence (clamped to T, ignored), as HF does
        t["start_positions"] = torch.tensor([5, 40])
        t["end_positions"] = torch.tensor([7, 4])
    for k in ("labels", "start_positions", "end_positions"):
        if k in t:
            kwargs[k] = t[k]
    model.zero_grad(set_to_none=True)
    out = model(**kwargs)
    for i, h in enumerate(out.hidden_states):
        t[f"hidden_states.{i}"] = h.detach()
    if name == "qa":
        t["start_logits"], t["end_logits"] = out.start_logits.detach(), out.end_logits.detach()
    else:
        t["logits"] = out.logits.detach()
    out.loss.backward()
    t["loss"] = out.loss.detach().reshape(1)
    for n, p in model.named_parameters():
        assert p.grad is not None, (name, n)
        assert p.grad.abs().max() > 0, (name, n)
        t[f"grad.{n}"] = p.grad.detach()
    t = {k: v.contiguous().to(torch.float32) if v.dtype.is_floating_point else v.contiguous() for k, v in t.items()}
    md = {"model": f"tests/fixtures/models/task_{name}", "case": f"task_{name}",
          "generator": "scripts/make_task_fixtures.py", "versions": VERSIONS}
    save_canonical(t, REF / f"task_{name}.safetensors", md)
    size = (REF / f"task_{name}.safetensors").stat().st_size
    print(f"task_{name}: {cls.__name__}, loss {out.loss.item():.6f}, {len(t)} tensors, {size} bytes")


def main():
    print(VERSIONS)
    for name in TASKS:
        make(name)


if __name__ == "__main__":
    main()
