#!/usr/bin/env python3
"""PyTorch autograd reference values for bertscope's gradient attributions.

What it makes (relative to the repo root), one file per case:

  tests/fixtures/ref/attr_<case>.safetensors
      for a fixture model of tests/fixtures/models/ (read only, never changed)
      and one input, the attribution scores of every input token for one
      target output, computed in float64 with torch autograd.

Definitions (model.double(), model.eval(): dropout off):
  * f, the target, is a log-softmax probability of one output, written as a
    spec string (metadata `target`):
      mask:POS:TOK       log_softmax over the vocabulary of the MLM logits at
                         position POS (BertForPreTraining: prediction_logits),
                         entry TOK (a token id)
      class:LABEL_NAME   log_softmax over the sequence classifier's logits,
                         entry id of LABEL_NAME (config id2label)
      tag:POS:LABEL_NAME log_softmax over the token classifier's logits at
                         POS, entry id of LABEL_NAME
      start:POS, end:POS log_softmax over the T start_logits (end_logits),
                         entry POS
  * x_t is the WORD embedding row of the token at position t
    (embeddings.word_embeddings.weight[id_t]), before the position and
    token-type embeddings and the embedding LayerNorm.  The model is fed
    through `inputs_embeds` with the usual token_type_ids / attention_mask
    (HF adds position and token-type embeddings to inputs_embeds, then
    LayerNorm).  Only x is differentiated: in tied models the MLM decoder
    weight is the same parameter as the word embedding, but it stays a
    constant here.
  * grad:          s_t = ||df/dx_t||_2
  * grad_x_input:  s_t = df/dx_t . x_t
  * ig_N (integrated gradients, right Riemann sum with N steps): the baseline
    x'_t is the word-embedding row of [PAD] (config pad_token_id = 0) at every
    position (token types, positions and mask unchanged);
      s_t = (x_t - x'_t) . (1/N) sum_{k=1..N} df/dx_t (x' + (k/N)(x - x'))
    and ig_gap_N = |sum_t s_t - (f(x) - f(x'))|, for N in 8, 32, 128.

Each file holds: input_ids, token_type_ids, attention_mask (T,) int64 (the
mask all ones); value (1,) = f(x); baseline_value (1,) = f(x'); df_dx (T, H);
grad, grad_x_input (T,); ig_8, ig_32, ig_128 (T,); ig_gap_8, ig_gap_32,
ig_gap_128 (1,); all float tensors float64.  String metadata: model (the
fixture folder name), target (spec string as above), case, text (the input
text), tokens (space separated), methods (the definitions, one line),
generator, versions.

QA has two files, attr_qa_start and attr_qa_end (same input, one target each),
so that every file has exactly one target.

Cases:
  mlm        relu_tiny (BertForMaskedLM, ReLU), a 9-token sentence with [MASK]
  nsp_pair   pair_nsp (BertForPreTraining), a sentence pair, MLM target
  seqcls     task_seqcls, a sentence pair, class target
  tokcls     task_tokcls, tag target
  qa_start   task_qa, question + context, answer start
  qa_end     task_qa, question + context, answer end
  t1         odd72 (BertForMaskedLM, untied), a one-token input ([MASK] alone,
             no [CLS]/[SEP]), MLM target at position 0

Checks (the script fails otherwise): f through input_ids equals f through
inputs_embeds; df_dx agrees with central finite differences along fixed random
directions; the IG gap shrinks as N grows (8 > 32 > 128) and ig_N approaches a
4096-step IG (not stored); grad >= 0 and finite.

Needs (CPU only, no network):  pip install torch "transformers>=5" safetensors numpy
Rerun from the repo root:      HF_HUB_OFFLINE=1 python3 scripts/make_attribution_fixtures.py
Deterministic (one thread, deterministic algorithms, no randomness in the
stored values; the finite-difference directions use a fixed seed), so a rerun
gives byte-identical files.
"""

import json
from pathlib import Path

from make_fixtures import MODELS, REF, save_canonical  # noqa: E402 (first: it sets the offline environment before transformers loads)
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import (  # noqa: E402
    BertForMaskedLM,
    BertForPreTraining,
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
    BertTokenizer,
)

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
torch.manual_seed(0)

VERSIONS = f"torch {torch.__version__}; transformers {transformers.__version__}"
IG_STEPS = (8, 32, 128)
IG_REF_STEPS = 4096
METHODS = (
    "f = log_softmax target; x_t = word_embeddings.weight[id_t] fed via inputs_embeds (float64, eval); "
    "grad: ||df/dx_t||_2; grad_x_input: df/dx_t . x_t; "
    "ig_N: baseline x'_t = word_embeddings.weight[pad_token_id], "
    "s_t = (x_t - x'_t) . (1/N) sum_{k=1..N} df/dx_t(x' + (k/N)(x - x')), "
    "ig_gap_N = |sum_t s_t - (f(x) - f(x'))|"
)

CLASSES = {
    "BertForMaskedLM": BertForMaskedLM,
    "BertForPreTraining": BertForPreTraining,
    "BertForSequenceClassification": BertForSequenceClassification,
    "BertForTokenClassification": BertForTokenClassification,
    "BertForQuestionAnswering": BertForQuestionAnswering,
}

# case: (model folder, text, text pair or None, target spec; "{mask}" is the
# position of [MASK], "{w:WORD}" the position of the first WORD, "{id:WORD}" its id)
CASES = {
    # "would" is relu_tiny's own top prediction at the [MASK] (the model is random)
    "mlm": ("relu_tiny", "the cat sat on the [MASK] .", None, "mask:{mask}:{id:would}"),
    "nsp_pair": ("pair_nsp", "the man went to the [MASK] .", "he bought a gallon of milk .",
                 "mask:{mask}:{id:store}"),
    "seqcls": ("task_seqcls", "i was happy .", "the dog sat .", "class:positive"),
    "tokcls": ("task_tokcls", "the woman went to paris , france .", None, "tag:{w:paris}:B-LOC"),
    "qa_start": ("task_qa", "who went to paris ?", "the woman went to paris .", "start:{w2:the}"),
    "qa_end": ("task_qa", "who went to paris ?", "the woman went to paris .", "end:{w2:woman}"),
    "t1": ("odd72", None, None, "mask:0:{id:cat}"),
}


def load(name):
    d = MODELS / name
    arch = json.loads((d / "config.json").read_text())["architectures"][0]
    model = CLASSES[arch].from_pretrained(d, attn_implementation="eager", dtype=torch.float32)
    model = model.double().eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model, BertTokenizer.from_pretrained(d), arch


def resolve(spec, tokens, tok):
    """Fill the {...} placeholders of a target spec."""
    out = ""
    while "{" in spec:
        a, rest = spec.split("{", 1)
        key, spec = rest.split("}", 1)
        if key == "mask":
            v = tokens.index("[MASK]")
        elif key.startswith("w:"):
            v = tokens.index(key[2:])
        elif key.startswith("w2:"):  # first occurrence after the first [SEP] (the context)
            sep = tokens.index("[SEP]")
            v = tokens.index(key[3:], sep + 1)
        elif key.startswith("id:"):
            v = tok.convert_tokens_to_ids(key[3:])
            assert v != tok.unk_token_id, key
        else:
            raise ValueError(key)
        out += a + str(v)
    return out + spec


def target_fn(model, arch, spec):
    """f(output) -> scalar (per batch row: returns shape (B,))."""
    kind, *args = spec.split(":")
    id2label = {v: k for k, v in model.config.id2label.items()} if kind in ("class", "tag") else None
    if kind == "mask":
        pos, tok = int(args[0]), int(args[1])
        key = "prediction_logits" if arch == "BertForPreTraining" else "logits"
        return lambda o: torch.log_softmax(getattr(o, key)[:, pos, :], dim=-1)[:, tok]
    if kind == "class":
        lab = id2label[args[0]]
        return lambda o: torch.log_softmax(o.logits, dim=-1)[:, lab]
    if kind == "tag":
        pos, lab = int(args[0]), id2label[args[1]]
        return lambda o: torch.log_softmax(o.logits[:, pos, :], dim=-1)[:, lab]
    if kind in ("start", "end"):
        pos = int(args[0])
        return lambda o: torch.log_softmax(getattr(o, f"{kind}_logits"), dim=-1)[:, pos]
    raise ValueError(spec)


def main():
    print(VERSIONS)
    for case, (name, text, pair, spec) in CASES.items():
        model, tok, arch = load(name)
        if text is None:  # T = 1: the [MASK] id alone, no [CLS]/[SEP]
            ids = [tok.mask_token_id]
            tt = [0]
            text = "[MASK]"
        else:
            enc = tok(text, pair) if pair is not None else tok(text)
            ids, tt = enc["input_ids"], enc["token_type_ids"]
        tokens = tok.convert_ids_to_tokens(ids)
        assert "[UNK]" not in tokens, (case, tokens)
        T = len(ids)
        spec = resolve(spec, tokens, tok)
        f_of = target_fn(model, arch, spec)

        input_ids = torch.tensor([ids], dtype=torch.int64)
        token_type_ids = torch.tensor([tt], dtype=torch.int64)
        attention_mask = torch.ones(1, T, dtype=torch.int64)
        W = model.get_input_embeddings().weight
        x = W[input_ids[0]].detach().clone()  # (T, H)
        pad = model.config.pad_token_id
        xb = W[pad].detach().clone().expand(T, -1).contiguous()

        def f_batch(e):  # e: (B, T, H) -> (B,)
            B = e.shape[0]
            o = model(inputs_embeds=e, token_type_ids=token_type_ids.expand(B, -1),
                      attention_mask=attention_mask.expand(B, -1), return_dict=True)
            return f_of(o)

        def f_and_grad(e):  # e: (T, H) -> f, df/de
            e = e.clone().requires_grad_(True)
            v = f_batch(e[None])[0]
            (g,) = torch.autograd.grad(v, e)
            return v.detach(), g.detach()

        with torch.no_grad():
            v_ids = f_of(model(input_ids=input_ids, token_type_ids=token_type_ids,
                               attention_mask=attention_mask, return_dict=True))[0]
        value, df_dx = f_and_grad(x)
        assert abs(value - v_ids) < 1e-12, (case, value, v_ids)
        with torch.no_grad():
            bvalue = f_batch(xb[None])[0]

        # finite-difference check of df/dx along fixed random directions
        gen = torch.Generator().manual_seed(1234)
        with torch.no_grad():
            for _ in range(3):
                d = torch.randn(x.shape, generator=gen, dtype=torch.float64)
                h = 1e-5
                fd = (f_batch((x + h * d)[None])[0] - f_batch((x - h * d)[None])[0]) / (2 * h)
                an = (df_dx * d).sum()
                assert abs(fd - an) <= 1e-6 * max(1.0, abs(an)), (case, fd.item(), an.item())
            # grad_x_input summed over t is the directional derivative along x
            fd = (f_batch(((1 + 1e-6) * x)[None])[0] - f_batch(((1 - 1e-6) * x)[None])[0]) / 2e-6
            assert abs(fd - (df_dx * x).sum()) <= 1e-5 * max(1.0, abs(fd)), case

        grad = df_dx.norm(dim=-1)
        gxi = (df_dx * x).sum(-1)
        assert torch.isfinite(grad).all() and (grad >= 0).all() and grad.max() > 0

        def ig(n):
            acc = torch.zeros_like(x)
            for k in range(1, n + 1):
                acc += f_and_grad(xb + (k / n) * (x - xb))[1]
            s = ((x - xb) * (acc / n)).sum(-1)
            return s, abs(s.sum() - (value - bvalue))

        # reference IG with many steps (batched; only a check, not stored)
        acc = torch.zeros_like(x)
        for k0 in range(1, IG_REF_STEPS + 1, 256):
            al = torch.arange(k0, min(k0 + 256, IG_REF_STEPS + 1), dtype=torch.float64) / IG_REF_STEPS
            e = (xb[None] + al[:, None, None] * (x - xb)[None]).requires_grad_(True)
            (g,) = torch.autograd.grad(f_batch(e).sum(), e)
            acc += g.sum(0)
        ig_ref = ((x - xb) * (acc / IG_REF_STEPS)).sum(-1)

        t = {
            "input_ids": input_ids[0].contiguous(),
            "token_type_ids": token_type_ids[0].contiguous(),
            "attention_mask": attention_mask[0].contiguous(),
            "value": value.reshape(1),
            "baseline_value": bvalue.reshape(1),
            "df_dx": df_dx.contiguous(),
            "grad": grad.contiguous(),
            "grad_x_input": gxi.contiguous(),
        }
        gaps, errs = [], []
        for n in IG_STEPS:
            s, gap = ig(n)
            t[f"ig_{n}"] = s.contiguous()
            t[f"ig_gap_{n}"] = gap.reshape(1)
            gaps.append(gap.item())
            errs.append((s - ig_ref).abs().max().item())
        assert gaps[0] > gaps[1] > gaps[2], (case, gaps)
        assert errs[0] > errs[1] > errs[2], (case, errs)
        assert gaps[2] < 0.05 * max(1.0, abs(value - bvalue)), (case, gaps)
        for k, v in t.items():
            assert v.dtype in (torch.int64, torch.float64), (k, v.dtype)
        md = {
            "model": name, "target": spec, "case": case, "text": text if pair is None else f"{text} ||| {pair}",
            "tokens": " ".join(tokens), "methods": METHODS,
            "generator": "scripts/make_attribution_fixtures.py", "versions": VERSIONS,
        }
        path = REF / f"attr_{case}.safetensors"
        save_canonical(t, path, md)
        size = path.stat().st_size
        assert size < 50_000, (case, size)
        print(f"attr_{case}: {name} ({arch}), T={T}, target {spec}, f(x) {value.item():.6f}, "
              f"f(x') {bvalue.item():.6f}, sum grad_x_input {gxi.sum().item():.6f}, "
              f"ig gaps N=8/32/128: {gaps[0]:.3e} {gaps[1]:.3e} {gaps[2]:.3e}, "
              f"max |ig_N - ig_{IG_REF_STEPS}|: {errs[0]:.2e} {errs[1]:.2e} {errs[2]:.2e}, {size} bytes")


if __name__ == "__main__":
    main()
