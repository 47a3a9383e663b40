#!/usr/bin/env python3
"""Generate the PyTorch training-parity fixtures for bertscope.

What it makes (paths relative to the repo root):

  tests/fixtures/ref/train_relu.safetensors
      10 AdamW steps of tests/fixtures/models/relu_tiny (BertForMaskedLM, MLM loss),
      batches of B=3, T=10.
  tests/fixtures/ref/train_nsp.safetensors
      10 AdamW steps of tests/fixtures/models/pair_nsp (BertForPreTraining,
      MLM + NSP loss), batches of B=2, T=12 ([CLS] a.. [SEP] b.. [SEP], token
      types 0/1, next_sentence_label).
  tests/fixtures/ref/train_task_{seqcls,regression,tokcls,qa}.safetensors
      10 AdamW steps of the fine-tuning heads, the models of
      scripts/make_task_fixtures.py used as they are, batches of B=3, T=11:
        train_task_seqcls      tests/fixtures/models/task_seqcls
            (BertForSequenceClassification, 3 labels), sentence pairs, class labels, CE
        train_task_regression  tests/fixtures/models/task_regression
            (BertForSequenceClassification, num_labels=1), single sentences, float
            targets ~ N(0, 1), MSE
        train_task_tokcls      tests/fixtures/models/task_tokcls
            (BertForTokenClassification, 5 tags), single sentences, a tag per token,
            -100 at [CLS], [SEP], padding and one random "continuation" piece per row
        train_task_qa          tests/fixtures/models/task_qa
            (BertForQuestionAnswering), pairs (question = segment A, context = B),
            start_positions <= end_positions inside segment B; step 4 row 1 is a
            no-answer (0, 0) and step 6 row 2 has its start past the sequence
            (T + 3: HF clamps it to T and ignores it; its end still counts)

The recipe (the Rust trainer implements the same one):
  * model loaded with attn_implementation="eager", hidden_dropout_prob=0 and
    attention_probs_dropout_prob=0 (every nn.Dropout has p=0), then model.train().
  * torch.optim.AdamW(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, foreach=False) with two
    parameter groups over model.named_parameters() (tied parameters listed once):
    names ending in ".bias" or containing "LayerNorm" get weight_decay 0.0, all
    others 0.01.
  * transformers.get_linear_schedule_with_warmup(num_warmup_steps=3,
    num_training_steps=10): the lr used at step k is 1e-3 * k/3 for k < 3 and
    1e-3 * (10-k)/7 after, so step 0 runs with lr 0 (it only fills the Adam moments
    and advances the Adam step counter; the parameters do not move).
  * each step k = 0..9, with a different batch:
        loss = model(input_ids, attention_mask, token_type_ids, labels
                     [, next_sentence_label]).loss
        (task QA: start_positions, end_positions instead of labels)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step(); scheduler.step(); optimizer.zero_grad()

Batches (numpy default_rng, seed per case): random non-special ids (5..vocab-1),
[CLS]=2 first, [SEP]=3 last (and after segment A in the pair cases), row 0 always full
length, the other rows shorter with [PAD]=0 / attention_mask 0 at the end; labels
are -100 except at 2-4 random non-pad, non-special positions per row, where they
are the original id; the input there is [MASK]=4 with probability 0.8, a random
non-special id with 0.1, unchanged with 0.1 (BERT's 80/10/10).  The task cases use the
same ids / padding / segments (no masking) and the labels above.

Tensors in each file:
  input_ids, token_type_ids, attention_mask, labels   int64 (10, B, T)
  next_sentence_label                                 int64 (10, B)   (train_nsp only)
  (task cases instead of labels / next_sentence_label:
   labels int64 (10, B) for seqcls, float32 (10, B) for regression, int64 (10, B, T)
   for tokcls; start_positions, end_positions int64 (10, B) for qa)
  losses      float32 (10)  loss of step k, before that step's update
  grad_norms  float32 (10)  total L2 norm returned by clip_grad_norm_ (pre-clipping)
  lrs         float32 (10)  lr used by optimizer.step() at step k
  final.<name> float32      every parameter of model.named_parameters() after the
                            10 steps (HF names; tied decoder weight/bias appear only
                            as bert.embeddings.word_embeddings.weight and
                            cls.predictions.bias; the task models tie nothing)
String metadata (sorted keys): model, case, lr, warmup, total_steps, weight_decay,
no_decay, eps, betas, max_grad_norm, dropout, data_seed, generator, versions; the task
cases also task (the head and its labels) and zero_gradient (comma-separated names of
the parameters whose true gradient is exactly zero at every step, see the quirk below).

Checks (run every time): the recipe is replayed with a hand-written float64
clip + AdamW + linear-warmup schedule, (a) on torch's own float32 gradients
step by step (must match torch's parameters to ~1e-7) and (b) end to end on a
float64 copy of the model (losses, grad norms, final parameters must agree with
the float32 torch run to float32 precision); losses must be finite and change
across steps; every step's loss on the initial weights must equal the loss written out
from the logits (CE / CE + NSP / MSE / QA's clamped span CE); the six files must be
< 1 MB together.

Quirk for parity tests: encoder.layer.*.attention.self.key.bias has an exactly
zero true gradient (adding q.b_k to every score of a query row does not change
the softmax).  torch's float32 gradient there is rounding noise (~1e-9 to 1e-7),
comparable to eps, so AdamW moves these biases by noise-driven amounts up to
~sum(lrs) = 5e-3; final.*key.bias is NOT reproducible by another implementation
(the float64 replay leaves them essentially unchanged).  For train_task_qa the same
holds for qa_outputs.bias and the last layer's output.LayerNorm.bias: the start/end
softmax runs over positions, and both add the same amount to every position's logit.
The script finds these from the float64 gradients (max |g| < 1e-12 over the ten steps;
every other parameter's is > 1e-2) and, for the task cases, lists them in the
zero_gradient metadata.  Compare them with an absolute tolerance of ~1e-2, or check
|final - initial| <= sum(lrs); everything else (losses, grad norms, all other
parameters) is well-conditioned.

Needs (CPU only, no network, never touches the HF hub):
  pip install torch "transformers>=5" safetensors numpy
and the models written by scripts/make_fixtures.py and scripts/make_task_fixtures.py
(tests/fixtures/models/).

Rerun from the repo root (deterministic: fixed seeds, single-threaded torch,
metadata in sorted order, so the files are byte-identical across reruns with the same
torch / transformers; another transformers version can move the float32 results by
~1e-7):
  python3 scripts/make_train_fixtures.py                 # every case
  python3 scripts/make_train_fixtures.py train_task_qa   # only the cases named
scripts/make_fixtures.py deletes and rewrites tests/fixtures/ref/ (train_* files
included), and scripts/make_task_fixtures.py rewrites the task models, so after
rerunning either, rerun this script too.
"""

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# make_fixtures sets HF_HUB_OFFLINE, one torch thread and deterministic algorithms
# at import time; its main() only runs as a script.
from make_fixtures import (  # noqa: E402
    CLS,
    MASK,
    MODELS,
    N_SPECIAL,
    REF,
    ROOT,
    SEP,
    VERSIONS,
    random_batch,
    rel,
    save_canonical,
)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402
from transformers import (  # noqa: E402
    BertForMaskedLM,
    BertForPreTraining,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    get_linear_schedule_with_warmup,
)

LR = 1e-3
WARMUP = 3
TOTAL_STEPS = 10
WEIGHT_DECAY = 0.01
BETAS = (0.9, 0.999)
EPS = 1e-8
MAX_GRAD_NORM = 1.0

CASES = {
    # case: (class, model dir, B, T, pair?, data seed)
    "train_relu": (BertForMaskedLM, MODELS / "relu_tiny", 3, 10, False, 31),
    "train_nsp": (BertForPreTraining, MODELS / "pair_nsp", 2, 12, True, 32),
    # fine-tuning heads (models from scripts/make_task_fixtures.py), B=3, T=11
    "train_task_seqcls": (BertForSequenceClassification, MODELS / "task_seqcls", 3, 11, True, 41),
    "train_task_regression": (BertForSequenceClassification, MODELS / "task_regression", 3, 11, False, 42),
    "train_task_tokcls": (BertForTokenClassification, MODELS / "task_tokcls", 3, 11, False, 43),
    "train_task_qa": (BertForQuestionAnswering, MODELS / "task_qa", 3, 11, True, 44),
}

# case -> (task, label description for the metadata); cases not listed are pre-training (MLM [+ NSP])
TASKS = {
    "train_task_seqcls": ("seqcls", "labels int64 (steps, B): class ids; cross-entropy"),
    "train_task_regression": ("regression", "labels float32 (steps, B): targets of the one output; MSE"),
    "train_task_tokcls": ("tokcls", "labels int64 (steps, B, T): tag ids, -100 at [CLS], [SEP], padding and "
                                    "one continuation piece per row; cross-entropy over the rest"),
    "train_task_qa": ("qa", "start_positions, end_positions int64 (steps, B): answer span in segment B "
                            "(or 0, 0 = no answer); a start past T is clamped to T and ignored, as HF does; "
                            "loss (CE(start) + CE(end)) / 2"),
}


def no_decay(name: str) -> bool:
    return name.endswith(".bias") or "LayerNorm" in name


def load_train_model(cls, d: Path, dtype=torch.float32):
    m = cls.from_pretrained(d, attn_implementation="eager", hidden_dropout_prob=0.0,
                            attention_probs_dropout_prob=0.0, dtype=torch.float32)
    assert m.config._attn_implementation == "eager"
    drops = [mod for mod in m.modules() if isinstance(mod, torch.nn.Dropout)]
    assert drops and all(mod.p == 0.0 for mod in drops)
    return m.to(dtype).train()


# --------------------------------------------------------------------------
# batches
# --------------------------------------------------------------------------

def task_labels(rng, task, num_labels, ids, am, segs, k):
    """The labels of one step of a task case (numpy arrays, keyed as HF's forward takes them)."""
    B, T = ids.shape
    if task == "seqcls":
        return {"labels": rng.integers(0, num_labels, size=B).astype(np.int64)}
    if task == "regression":
        return {"labels": rng.normal(0.0, 1.0, size=B).astype(np.float32)}
    if task == "tokcls":
        labels = rng.integers(0, num_labels, size=(B, T)).astype(np.int64)
        labels[(am == 0) | (ids == CLS) | (ids == SEP)] = -100
        for b in range(B):  # a continuation word piece: no label
            labels[b, int(rng.choice(np.flatnonzero(labels[b] != -100)))] = -100
        return {"labels": labels}
    assert task == "qa"
    start, end = np.zeros(B, np.int64), np.zeros(B, np.int64)
    for b in range(B):
        n = int(am[b].sum())
        start[b] = rng.integers(segs[b], n - 1)  # inside segment B, before its [SEP]
        end[b] = rng.integers(start[b], n - 1)
    if k == 4:
        start[1] = end[1] = 0  # no answer: [CLS]
    if k == 6:
        start[2] = T + 3  # past the sequence: clamped to T, ignored (its end still counts)
    return {"start_positions": start, "end_positions": end}


def make_batches(rng, V, B, T, pair, task=None, num_labels=0):
    ids_all, tt_all, am_all, lab_all, nsp_all, task_all = [], [], [], [], [], []
    for k in range(TOTAL_STEPS):
        lengths = [T] + [int(rng.integers(T // 2, T)) for _ in range(B - 1)]  # rows 1.. padded
        segs = None
        if pair:  # first segment incl. [CLS] and its [SEP]: at least 3, leaves >= 2 for B
            segs = [int(rng.integers(3, n - 1)) for n in lengths]
        ids, tt, am = random_batch(rng, V, lengths, T, N_SPECIAL, CLS, SEP, segs=segs)
        if task is not None:
            ids_all.append(ids)
            tt_all.append(tt)
            am_all.append(am)
            task_all.append(task_labels(rng, task, num_labels, ids, am, segs, k))
            continue
        labels = np.full(ids.shape, -100, np.int64)
        for b in range(B):
            cand = np.flatnonzero((am[b] == 1) & (ids[b] >= N_SPECIAL))
            k = int(rng.integers(2, 5))
            pos = np.sort(rng.choice(cand, size=min(k, len(cand)), replace=False))
            for t in pos:
                labels[b, t] = ids[b, t]
                u = rng.random()
                if u < 0.8:
                    ids[b, t] = MASK
                elif u < 0.9:
                    ids[b, t] = rng.integers(N_SPECIAL, V)
        ids_all.append(ids)
        tt_all.append(tt)
        am_all.append(am)
        lab_all.append(labels)
        if pair:
            nsp_all.append(rng.integers(0, 2, size=B).astype(np.int64))
    out = {
        "input_ids": np.stack(ids_all),
        "token_type_ids": np.stack(tt_all),
        "attention_mask": np.stack(am_all),
    }
    if task is not None:
        for name in task_all[0]:
            out[name] = np.stack([lab[name] for lab in task_all])
        return {k: torch.as_tensor(v) for k, v in out.items()}
    out["labels"] = np.stack(lab_all)
    if pair:
        out["next_sentence_label"] = np.stack(nsp_all)
    return {k: torch.as_tensor(v, dtype=torch.int64) for k, v in out.items()}


def step_kwargs(batches, k):
    return {n: v[k] for n, v in batches.items()}


# --------------------------------------------------------------------------
# torch run (the fixture)
# --------------------------------------------------------------------------

def train_torch(model, batches, replay=None):
    """The recipe with torch's AdamW / clip_grad_norm_ / scheduler.  If replay is a
    HandAdamW, it is fed torch's float32 grads each step and compared."""
    named = list(model.named_parameters())
    groups = [
        {"params": [p for n, p in named if not no_decay(n)], "weight_decay": WEIGHT_DECAY},
        {"params": [p for n, p in named if no_decay(n)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=LR, betas=BETAS, eps=EPS, foreach=False)
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=WARMUP,
                                            num_training_steps=TOTAL_STEPS)
    losses, norms, lrs, replay_diff = [], [], [], 0.0
    for k in range(TOTAL_STEPS):
        out = model(**step_kwargs(batches, k))
        loss = out.loss
        loss.backward()
        grads = [p.grad.detach().double().clone() for _, p in named]
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=MAX_GRAD_NORM)
        lr = opt.param_groups[0]["lr"]
        assert all(g["lr"] == lr for g in opt.param_groups)
        opt.step()
        sched.step()
        opt.zero_grad()
        losses.append(loss.item())
        norms.append(gn.item())
        lrs.append(lr)
        if replay is not None:
            hn, hlr = replay.step(grads, k)
            assert abs(hlr - lr) < 1e-15, (k, hlr, lr)
            assert abs(hn - gn.item()) <= 1e-6 * hn, (k, hn, gn.item())
            for (n, p), q in zip(named, replay.params):
                replay_diff = max(replay_diff, (p.detach().double() - q).abs().max().item())
    return losses, norms, lrs, replay_diff


# --------------------------------------------------------------------------
# hand-written float64 recipe (independent check)
# --------------------------------------------------------------------------

def lr_at(k: int) -> float:
    if k < WARMUP:
        return LR * k / max(1, WARMUP)
    return LR * max(0.0, (TOTAL_STEPS - k) / max(1, TOTAL_STEPS - WARMUP))


class HandAdamW:
    """Global-norm clipping (torch's rule: coef = max_norm / (norm + 1e-6), applied
    when < 1) followed by decoupled-weight-decay Adam with bias correction."""

    def __init__(self, named):
        self.names = [n for n, _ in named]
        self.params = [p.detach().double().clone() for _, p in named]
        self.wd = [0.0 if no_decay(n) else WEIGHT_DECAY for n in self.names]
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    def step(self, grads, k):
        norm = math.sqrt(sum(float((g * g).sum()) for g in grads))
        coef = MAX_GRAD_NORM / (norm + 1e-6)
        if coef < 1.0:
            grads = [g * coef for g in grads]
        lr, t = lr_at(k), k + 1
        b1, b2 = BETAS
        for i, g in enumerate(grads):
            p = self.params[i]
            p.mul_(1.0 - lr * self.wd[i])
            self.m[i] = b1 * self.m[i] + (1 - b1) * g
            self.v[i] = b2 * self.v[i] + (1 - b2) * g * g
            mhat = self.m[i] / (1 - b1 ** t)
            vhat = self.v[i] / (1 - b2 ** t)
            p.sub_(lr * mhat / (vhat.sqrt() + EPS))
        return norm, lr


def train_hand_f64(cls, d, batches):
    """The whole recipe in float64: float64 model forward/backward (torch autograd),
    hand-written clip + AdamW + schedule, parameters owned by HandAdamW.  Also returns, per
    parameter, the largest float64 gradient entry over the steps (how zero a zero gradient is)."""
    model = load_train_model(cls, d, torch.float64)
    named = list(model.named_parameters())
    opt = HandAdamW(named)
    losses, norms, lrs = [], [], []
    gmax = {n: 0.0 for n, _ in named}
    for k in range(TOTAL_STEPS):
        with torch.no_grad():
            for (_, p), q in zip(named, opt.params):
                p.copy_(q)
        model.zero_grad(set_to_none=True)
        loss = model(**step_kwargs(batches, k)).loss
        loss.backward()
        for name, p in named:
            gmax[name] = max(gmax[name], p.grad.abs().max().item())
        n, lr = opt.step([p.grad.detach().clone() for _, p in named], k)
        losses.append(loss.item())
        norms.append(n)
        lrs.append(lr)
    return losses, norms, lrs, dict(zip(opt.names, opt.params)), gmax


def ce_by_hand(logits, labels, ignore):
    """Mean cross-entropy over the rows whose label is not `ignore`."""
    sel = labels != ignore
    lp = torch.log_softmax(logits[sel], -1)
    return -lp[torch.arange(lp.shape[0]), labels[sel]].mean()


def check_task_loss_by_hand(task, out, kw):
    """A task head's loss from its logits, HF's formula written out; its |diff| to HF's."""
    if task == "seqcls":
        loss = ce_by_hand(out.logits, kw["labels"], -100)
    elif task == "regression":
        loss = ((out.logits[:, 0] - kw["labels"].double()) ** 2).mean()
    elif task == "tokcls":
        loss = ce_by_hand(out.logits.flatten(0, 1), kw["labels"].flatten(), -100)
    else:  # qa: positions clamped to [0, T]; T is ignored
        T = out.start_logits.shape[1]
        loss = (ce_by_hand(out.start_logits, kw["start_positions"].clamp(0, T), T)
                + ce_by_hand(out.end_logits, kw["end_positions"].clamp(0, T), T)) / 2
    return abs(loss.item() - out.loss.item())


def check_loss_by_hand(cls, d, batches, task=None):
    """The loss of every step's batch on the initial weights, written out from the logits (mean
    CE over labelled tokens (+ mean NSP CE), or the task head's loss) against HF's; the largest
    |diff|."""
    model = load_train_model(cls, d, torch.float64)
    return max(loss_by_hand_diff(cls, model, step_kwargs(batches, k), task) for k in range(TOTAL_STEPS))


def loss_by_hand_diff(cls, model, kw, task):
    with torch.no_grad():
        out = model(**kw)
    if task is not None:
        return check_task_loss_by_hand(task, out, kw)
    if cls is BertForPreTraining:
        logits, nsp = out.prediction_logits, out.seq_relationship_logits
    else:
        logits, nsp = out.logits, None
    lab = kw["labels"]
    sel = lab != -100
    lp = torch.log_softmax(logits[sel], -1)
    loss = -lp[torch.arange(lp.shape[0]), lab[sel]].mean()
    if nsp is not None:
        lq = torch.log_softmax(nsp, -1)
        loss = loss - lq[torch.arange(lq.shape[0]), kw["next_sentence_label"]].mean()
    return abs(loss.item() - out.loss.item())


# --------------------------------------------------------------------------

def make_case(case):
    cls, d, B, T, pair, seed = CASES[case]
    cfg = json.loads((d / "config.json").read_text())
    V = cfg["vocab_size"]
    task = TASKS.get(case, (None,))[0]
    batches = make_batches(np.random.default_rng(seed), V, B, T, pair, task, len(cfg.get("id2label", {})))

    torch.manual_seed(0)  # nothing random should remain; belt and braces
    model = load_train_model(cls, d)
    named = list(model.named_parameters())
    names = [n for n, _ in named]
    assert len(set(names)) == len(names)
    assert len(list(model.parameters())) == len(named)  # clip sees tied params once
    tied = [n for n, _ in model.named_parameters(remove_duplicate=False) if n not in names]
    replay = HandAdamW(named)
    losses, norms, lrs, replay_diff = train_torch(model, batches, replay)
    # the float64 run (checked below); its gradients tell which parameters have an exactly zero
    # true gradient at every step (float64 noise ~1e-17, every other parameter > 1e-2 here)
    h_losses, h_norms, h_lrs, h_final, gmax = train_hand_f64(cls, d, batches)
    zero = sorted(n for n in names if gmax[n] < 1e-12)
    assert {n for n in names if n.endswith("attention.self.key.bias")} <= set(zero), zero

    t = dict(batches)
    t["losses"] = torch.tensor(losses, dtype=torch.float32)
    t["grad_norms"] = torch.tensor(norms, dtype=torch.float32)
    t["lrs"] = torch.tensor(lrs, dtype=torch.float32)
    for n, p in named:
        t[f"final.{n}"] = p.detach().to(torch.float32).contiguous()
    md = {
        "model": rel(d),
        "case": case,
        "lr": repr(LR),
        "warmup": str(WARMUP),
        "total_steps": str(TOTAL_STEPS),
        "weight_decay": repr(WEIGHT_DECAY),
        "no_decay": 'parameter names ending in ".bias" or containing "LayerNorm" (weight_decay 0.0)',
        "eps": repr(EPS),
        "betas": f"{BETAS[0]!r},{BETAS[1]!r}",
        "max_grad_norm": repr(MAX_GRAD_NORM),
        "dropout": "0 (hidden_dropout_prob = attention_probs_dropout_prob = 0; model.train())",
        "data_seed": str(seed),
        "generator": "scripts/make_train_fixtures.py",
        "versions": VERSIONS,
    }
    if task is not None:  # (the pre-training files predate these two keys)
        md["task"] = f"{cls.__name__}: {TASKS[case][1]}"
        md["zero_gradient"] = ",".join(zero)
    for k, v in t.items():
        assert v.dtype in (torch.int64, torch.float32), (k, v.dtype)
    path = REF / f"{case}.safetensors"
    save_canonical(t, path, md)

    # ---- checks
    d_loss = max(abs(a - b) / abs(b) for a, b in zip(losses, h_losses))
    d_norm = max(abs(a - b) / abs(b) for a, b in zip(norms, h_norms))
    d_lr = max(abs(a - b) for a, b in zip(lrs, h_lrs))
    # attention.self.key.bias gets a mathematically zero gradient (softmax over keys is
    # invariant to adding q.b_k to every score), and so, for QA, do qa_outputs.bias and the
    # last layer's output LayerNorm bias (the span softmax runs over positions, and both add
    # the same amount to every position's logit); their float32 gradient is pure rounding
    # noise (~1e-9) that Adam rescales to O(lr) moves; in float64 the noise is far below eps
    # and they stay put.  They are compared only against that bound.
    d_final = max((p.detach().double() - h_final[n]).abs().max().item()
                  for n, p in named if n not in zero)
    d_zero = max((p.detach().double() - h_final[n]).abs().max().item()
                 for n, p in named if n in zero)
    d_ce = check_loss_by_hand(cls, d, batches, task)
    res = dict(case=case, task=task, tied=tied, losses=losses, lrs=lrs, norms=norms, replay=replay_diff,
               d_loss=d_loss, d_norm=d_norm, d_lr=d_lr, d_final=d_final, d_zero=d_zero, zero=zero,
               d_ce=d_ce, path=path, n_params=len(named))
    assert d_zero <= 2 * sum(lrs), res
    assert replay_diff < 1e-6, res
    assert d_lr < 1e-15 and d_ce < 1e-10, res
    assert d_loss < 1e-4 and d_norm < 1e-4 and d_final < 1e-4, res
    assert all(math.isfinite(x) for x in losses + norms), res
    assert len(set(losses)) == TOTAL_STEPS, res
    assert lrs[0] == 0.0 and max(norms) > MAX_GRAD_NORM, res  # clipping is exercised
    return res


def verify_file(res):
    case = res["case"]
    cls, d, B, T, pair, _ = CASES[case]
    with safe_open(str(res["path"]), "np") as f:
        md = f.metadata()
        t = {k: f.get_tensor(k) for k in f.keys()}
    raw = res["path"].read_bytes()
    hdr = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    assert list(hdr["__metadata__"]) == sorted(md) and md["model"] == rel(d)
    for k in ("input_ids", "token_type_ids", "attention_mask"):
        assert t[k].dtype == np.int64 and t[k].shape == (TOTAL_STEPS, B, T), (case, k)
    ids, am = t["input_ids"], t["attention_mask"]
    assert (ids[am == 0] == 0).all() and (t["token_type_ids"][am == 0] == 0).all()
    assert (am == 0).any(axis=(1, 2)).all()  # every step has a padded row
    assert (ids[:, :, 0] == CLS).all()
    assert len({ids[k].tobytes() for k in range(TOTAL_STEPS)}) == TOTAL_STEPS
    if res["task"] is not None:
        assert md["zero_gradient"].split(",") == res["zero"] and md["task"].startswith(cls.__name__)
        verify_task_labels(res, t)
    else:
        verify_mlm_labels(res, t)
    for k in ("losses", "grad_norms", "lrs"):
        assert t[k].dtype == np.float32 and t[k].shape == (TOTAL_STEPS,)
    model = cls.from_pretrained(d, attn_implementation="eager")
    finals = {k for k in t if k.startswith("final.")}
    assert finals == {f"final.{n}" for n, _ in model.named_parameters()}
    moved = 0
    for n, p in model.named_parameters():
        assert t[f"final.{n}"].shape == tuple(p.shape) and t[f"final.{n}"].dtype == np.float32
        moved += not np.array_equal(t[f"final.{n}"], p.detach().numpy())
    assert moved == len(finals), (case, moved, len(finals))
    res["tensors"] = {k: (str(v.dtype), list(v.shape)) for k, v in t.items() if not k.startswith("final.")}
    res["n_final"] = len(finals)


def verify_mlm_labels(res, t):
    case = res["case"]
    cls, d, B, T, pair, _ = CASES[case]
    ids, am, lab = t["input_ids"], t["attention_mask"], t["labels"]
    assert lab.dtype == np.int64 and lab.shape == (TOTAL_STEPS, B, T)
    n_lab = (lab != -100).sum(-1)
    assert ((n_lab >= 2) & (n_lab <= 4)).all()
    assert (am[lab != -100] == 1).all() and (lab[lab != -100] >= N_SPECIAL).all()
    masked = (ids[lab != -100] == MASK).mean()
    assert 0.5 < masked < 1.0, masked
    if pair:
        nsp = t["next_sentence_label"]
        assert nsp.dtype == np.int64 and nsp.shape == (TOTAL_STEPS, B) and set(nsp.ravel()) == {0, 1}
        assert (t["token_type_ids"] == 1).any(axis=2).all()
    else:
        assert "next_sentence_label" not in t and (t["token_type_ids"] == 0).all()
    res["labels"] = f"labelled inputs that are [MASK]: {masked:.2f}"


def verify_task_labels(res, t):
    case, task = res["case"], res["task"]
    cls, d, B, T, pair, _ = CASES[case]
    ids, am, tt = t["input_ids"], t["attention_mask"], t["token_type_ids"]
    assert "next_sentence_label" not in t
    if pair:
        assert (tt == 1).any(axis=2).all() and (ids == SEP).sum(-1).min() == 2
    else:
        assert (tt == 0).all()
    n_labels = len(json.loads((d / "config.json").read_text()).get("id2label", {}))
    if task in ("seqcls", "regression"):
        lab = t["labels"]
        assert lab.shape == (TOTAL_STEPS, B)
        if task == "seqcls":
            assert lab.dtype == np.int64 and set(lab.ravel()) == set(range(n_labels)), lab
            res["labels"] = f"class counts {np.bincount(lab.ravel()).tolist()}"
        else:
            assert lab.dtype == np.float32 and n_labels == 1
            res["labels"] = f"targets in [{lab.min():.2f}, {lab.max():.2f}]"
    elif task == "tokcls":
        lab = t["labels"]
        assert lab.dtype == np.int64 and lab.shape == (TOTAL_STEPS, B, T)
        on = lab != -100
        assert (am[on] == 1).all() and (ids[on] >= N_SPECIAL).all() and on.sum(-1).min() >= 2
        assert set(lab[on].ravel()) == set(range(n_labels))
        res["labels"] = f"{on.sum()} labelled tokens of {(am == 1).sum()}, tag counts {np.bincount(lab[on]).tolist()}"
    else:
        s, e = t["start_positions"], t["end_positions"]
        assert s.dtype == e.dtype == np.int64 and s.shape == e.shape == (TOTAL_STEPS, B)
        past = s >= T
        assert past.sum() == 1 and (e < T).all() and (s[~past] <= e[~past]).all()
        rows, cols = np.nonzero(~past & (s > 0))
        assert (tt[rows, cols, s[rows, cols]] == 1).all() and (tt[rows, cols, e[rows, cols]] == 1).all()
        assert (ids[rows, cols, e[rows, cols]] >= N_SPECIAL).all()
        res["labels"] = f"spans {(s[~past] > 0).sum()}, no-answer {(s == 0).sum()}, start past T {past.sum()}"


def main():
    cases = sys.argv[1:] or list(CASES)
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; the cases are {list(CASES)}")
    print(VERSIONS)
    results = [make_case(c) for c in cases]
    for r in results:
        verify_file(r)
    for r in results:
        print(f"\n{r['case']}  ({r['path'].relative_to(ROOT)}, {r['path'].stat().st_size} bytes, "
              f"{r['n_final']} final.* tensors; tied, not listed: {', '.join(r['tied']) or 'none'})")
        print("  " + ", ".join(f"{k} {dt}{sh}" for k, (dt, sh) in r["tensors"].items()))
        print(f"  {r['labels']}")
        print(f"  {'step':>4} {'lr':>12} {'loss':>12} {'grad_norm':>12}")
        for k in range(TOTAL_STEPS):
            print(f"  {k:>4} {r['lrs'][k]:>12.6g} {r['losses'][k]:>12.7f} {r['norms'][k]:>12.6f}")
        print(f"  hand AdamW on torch's f32 grads vs torch params, max |diff|: {r['replay']:.3g}")
        print(f"  f64 hand recipe vs f32 torch: losses rel {r['d_loss']:.3g}, grad norms rel "
              f"{r['d_norm']:.3g}, lrs {r['d_lr']:.3g}, final params max |diff| {r['d_final']:.3g} "
              f"(zero true gradient, moved by noise: {r['d_zero']:.3g}: {', '.join(r['zero'])})")
        what = r["task"] or ("CE + NSP" if "nsp" in r["case"] else "CE")
        print(f"  every batch's loss on the initial weights from the logits ({what}) max |diff|: {r['d_ce']:.3g}")
    total = sum(REF.joinpath(f"{c}.safetensors").stat().st_size for c in CASES)
    print(f"\nall {len(CASES)} train fixtures: {total} bytes")
    assert total < 1_000_000
    print("ok")


if __name__ == "__main__":
    main()
