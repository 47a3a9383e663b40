#!/usr/bin/env python3
"""PyTorch / HF reference fixtures for bertscope's BERT2BERT encoder-decoder (EncoderDecoderModel).

What it makes (relative to the repo root):

  tests/fixtures/models/enc_dec/
      EncoderDecoderModel(encoder=BertModel, decoder=BertLMHeadModel) built from
      configs (no hub): encoder hidden 36, 2 layers, 3 heads, FFN 52, GELU (with
      BertModel's default pooler, unused by the seq2seq forward); decoder hidden
      36, 2 layers, 3 heads, FFN 44, GELU, is_decoder + add_cross_attention;
      vocab = the ~150-word WordPiece vocab of relu_tiny, 40 positions.
      decoder_start_token_id = [CLS], pad_token_id = [PAD], eos_token_id = [SEP]
      (top config, decoder config and generation_config.json).  Nothing is tied
      across encoder and decoder; inside the decoder cls.predictions.decoder is
      tied to decoder.bert.embeddings.word_embeddings (weight) and to
      cls.predictions.bias (bias), so neither alias is in model.safetensors.
      Every parameter perturbed with N(0, 0.2) noise (seed 4050: the first
      seed whose greedy / beam runs reach [SEP] early).  Tokenizer files:
      vocab.txt, tokenizer.json, tokenizer_config.json (model_max_length 40).

  tests/fixtures/models/enc_dec_odd/
      the same kind with encoder hidden 24 (2 layers, 3 heads, FFN 40, GELU) and
      decoder hidden 36 (1 layer, 3 heads, FFN 44, ReLU): the widths differ, so
      HF adds enc_to_dec_proj (nn.Linear 24 -> 36: weight [36, 24], bias [36])
      applied to the encoder's last hidden state before cross-attention.

  tests/fixtures/ref/dec_teacher.safetensors      (enc_dec)
  tests/fixtures/ref/dec_odd_teacher.safetensors  (enc_dec_odd)
      teacher forcing on a batch of 2: right-padded sources (input_ids,
      attention_mask, token_type_ids = zeros), decoder_input_ids = [CLS] + target
      word pieces, right-padded with [PAD] (decoder_attention_mask marks them),
      labels = target word pieces + [SEP] (decoder_input_ids shifted left), -100
      on pads.  HF's outputs from eager attention: encoder_hidden_states.{0..L},
      encoder_attentions.{l} (B,NH,S,S), decoder_hidden_states.{0..L},
      decoder_attentions.{l} (B,NH,T,T), cross_attentions.{l} (B,NH,T,S), logits
      (B,T,V), loss (EncoderDecoderModel's: CrossEntropyLoss(), mean over labels
      != -100), grad.<model.safetensors name> for every parameter (grad_none: the
      encoder pooler).  enc_dec_odd also stores encoder_projected (B,S,36) =
      enc_to_dec_proj(encoder_hidden_states.{L}), the keys/values of its
      cross-attention.

  tests/fixtures/ref/dec_single.safetensors       (enc_dec)
      the first decoding step: batch 1, no padding, T = 1 (decoder_input_ids =
      [CLS]); the same tensors, with labels = the first target word piece.  At
      T = 1 the decoder self-attention is a softmax over one key (exactly 1),
      so its query/key weights and biases get exactly zero gradients: stored,
      and named in the grad_zero metadata (empty in the other cases).

  tests/fixtures/ref/dec_generate.json            (enc_dec)
      for 4 sources (batch 1 each): greedy generate (max_new_tokens 8) ids with
      the per-step top-5 ids and log-probabilities, and beam search (3 beams,
      length_penalty 1.0, early_stopping default False) ids, sequences_scores,
      beam_indices and per-token transition scores; the exact kwargs and notes.

Needs (CPU only, no network, never touches the HF hub):
  pip install torch "transformers>=5" safetensors numpy

Rerun from the repo root:
  python3 scripts/make_decoder_fixtures.py

Deterministic (fixed seeds, one thread, files written by save_canonical; two
runs give byte-identical files); it deletes and rewrites everything it owns,
then re-loads every file and checks it (attention rows summing to 1, decoder
self-attention exactly 0 above the diagonal and on padded keys, cross-attention
exactly 0 on padded source positions, the loss recomputed from the logits,
non-zero gradients, greedy and beam results recomputed without the KV cache) and
prints a summary.

Notes on transformers 5 behaviour that the fixtures depend on:
  * BertTokenizerFast(vocab_file=...) silently ignores vocab_file; the
    tokenizer is built with vocab=<path>.  Its save_pretrained writes only
    tokenizer.json + tokenizer_config.json; vocab.txt is copied here.
  * EncoderDecoderConfig has no tie_encoder_decoder in transformers 5 (v4 had
    it, default False); it is written to config.json as false anyway, and the
    check below asserts encoder and decoder share no tensor.
  * The loss is computed by EncoderDecoderModel itself (labels are not passed to
    the decoder): CrossEntropyLoss() over logits.reshape(-1, V), labels.view(-1),
    reduction mean, ignore_index -100, no label smoothing.
"""

import hashlib
import json
import shutil
import tempfile
import warnings
from pathlib import Path

from make_fixtures import MODELS, REF, ROOT, file_keys, perturb, rel, save_canonical, store_grads, store_states  # noqa: E402 (first: it sets the offline environment before transformers loads)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from transformers import (  # noqa: E402
    BertConfig,
    BertLMHeadModel,
    BertModel,
    BertTokenizerFast,
    EncoderDecoderConfig,
    EncoderDecoderModel,
)

GENERATE_JSON = REF / "dec_generate.json"
WORDPIECE_VOCAB = MODELS / "relu_tiny" / "vocab.txt"
N_VOCAB = len(WORDPIECE_VOCAB.read_text().splitlines())
NOISE_STD = 0.2
MAX_LEN = 40
VERSIONS = f"torch {torch.__version__}; transformers {transformers.__version__}"
GENERATOR = "scripts/make_decoder_fixtures.py"


# --------------------------------------------------------------------------
# 1. tokenizer
# --------------------------------------------------------------------------

def tokenizer():
    # transformers 5: vocab_file= is ignored (a 5-token vocab); vocab=<path> reads vocab.txt
    tok = BertTokenizerFast(vocab=str(WORDPIECE_VOCAB), do_lower_case=True, model_max_length=MAX_LEN)
    assert len(tok) == N_VOCAB
    return tok


TOK = tokenizer()
PAD, CLS, SEP = TOK.pad_token_id, TOK.cls_token_id, TOK.sep_token_id
assert (PAD, CLS, SEP) == (0, 2, 3), (PAD, CLS, SEP)


def save_tokenizer(d: Path) -> None:
    TOK.save_pretrained(d)  # tokenizer.json, tokenizer_config.json
    shutil.copyfile(WORDPIECE_VOCAB, d / "vocab.txt")


# --------------------------------------------------------------------------
# 2. models
# --------------------------------------------------------------------------

COMMON = dict(vocab_size=N_VOCAB, max_position_embeddings=MAX_LEN, pad_token_id=PAD, attn_implementation="eager")
SPECIALS = dict(decoder_start_token_id=CLS, pad_token_id=PAD, eos_token_id=SEP)

MODELS_SPEC = {
    # name: (encoder config kwargs, decoder config kwargs, seed)
    "enc_dec": (dict(hidden_size=36, num_hidden_layers=2, num_attention_heads=3, intermediate_size=52,
                     hidden_act="gelu"),
                dict(hidden_size=36, num_hidden_layers=2, num_attention_heads=3, intermediate_size=44,
                     hidden_act="gelu"), 4050),  # see SEED_NOTE
    "enc_dec_odd": (dict(hidden_size=24, num_hidden_layers=2, num_attention_heads=3, intermediate_size=40,
                         hidden_act="gelu"),
                    dict(hidden_size=36, num_hidden_layers=1, num_attention_heads=3, intermediate_size=44,
                         hidden_act="relu"), 4002),
}
SEED_NOTE = ("enc_dec's seed 4050 is the first of 4001..4060 whose greedy and beam runs on GEN_SOURCES reach "
             "[SEP] before max_new_tokens (random decoders seldom emit it), so the eos paths are covered")
# the decoder's tied aliases (absent from model.safetensors) -> the stored tensor
DECODER_TIED = {
    "decoder.cls.predictions.decoder.weight": "decoder.bert.embeddings.word_embeddings.weight",
    "decoder.cls.predictions.decoder.bias": "decoder.cls.predictions.bias",
}


def load_model(name: str):
    m, info = EncoderDecoderModel.from_pretrained(MODELS / name, attn_implementation="eager", dtype=torch.float32,
                                                  output_loading_info=True)
    assert not any(info[k] for k in ("missing_keys", "unexpected_keys", "mismatched_keys")), (name, info)
    assert m.encoder.config._attn_implementation == "eager" and m.decoder.config._attn_implementation == "eager"
    return m.eval()


def check_ties(name: str, m) -> None:
    dec = m.decoder
    assert dec.cls.predictions.decoder.weight is dec.bert.embeddings.word_embeddings.weight, name
    assert dec.cls.predictions.decoder.bias is dec.cls.predictions.bias, name
    enc_ptrs = {p.data_ptr() for p in m.encoder.parameters()}
    assert not enc_ptrs & {p.data_ptr() for p in m.decoder.parameters()}, (name, "encoder/decoder share a tensor")


def make_model(name: str) -> dict:
    enc_kw, dec_kw, seed = MODELS_SPEC[name]
    d = MODELS / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    torch.manual_seed(seed)
    enc_cfg = BertConfig(**COMMON, **enc_kw)
    dec_cfg = BertConfig(**COMMON, **dec_kw, is_decoder=True, add_cross_attention=True, eos_token_id=SEP)
    cfg = EncoderDecoderConfig.from_encoder_decoder_configs(enc_cfg, dec_cfg, **SPECIALS, vocab_size=N_VOCAB,
                                                            tie_encoder_decoder=False)
    model = EncoderDecoderModel(config=cfg, encoder=BertModel(enc_cfg), decoder=BertLMHeadModel(dec_cfg))
    for k, v in SPECIALS.items():
        setattr(model.generation_config, k, v)
    check_ties(name, model)
    perturb(model, seed + 50_000)
    model.save_pretrained(d, safe_serialization=True)
    save_tokenizer(d)

    keys = file_keys(d)
    params = dict(model.named_parameters())
    assert set(keys) == set(params), (name, sorted(set(keys) ^ set(params)))
    assert not set(DECODER_TIED) & set(keys), (name, "a tied alias is in the file")
    assert ("enc_to_dec_proj.weight" in keys) == (enc_kw["hidden_size"] != dec_kw["hidden_size"])
    m2 = load_model(name)
    check_ties(name, m2)
    sd1, sd2 = model.state_dict(), m2.state_dict()
    assert sd1.keys() == sd2.keys()
    for k in sd1:
        assert torch.equal(sd1[k], sd2[k]), (name, k)
    gc = json.loads((d / "generation_config.json").read_text())
    assert all(gc[k] == v for k, v in SPECIALS.items()), gc
    return {k: list(v.shape) for k, v in sorted(keys.items())}


# --------------------------------------------------------------------------
# 3. teacher-forcing cases
# --------------------------------------------------------------------------

TEACHER = {
    # case: (model, sources, targets)
    "dec_teacher": ("enc_dec",
                    ["the old man went to the store and bought a gallon of milk.", "paris is the capital of france."],
                    ["he was happy.", "the capital of france is a big and happy city."]),
    "dec_odd_teacher": ("enc_dec_odd",
                        ["a little bird sat in the green tree.", "she walked to the house!"],
                        ["the bird can sing.", "she went home to read a new book."]),
    "dec_single": ("enc_dec", ["the cat sat on the mat because it was tired."], ["the dog was sad."]),
}


def encode_sources(texts):
    e = TOK(texts, padding=True, return_tensors="pt", return_token_type_ids=True)
    return e["input_ids"].long(), e["attention_mask"].long(), torch.zeros_like(e["input_ids"]).long()


def encode_targets(texts, first_only=False):
    pieces = [TOK(t, add_special_tokens=False)["input_ids"] for t in texts]
    if first_only:
        pieces = [p[:0] for p in pieces]  # decoder input: the start token alone
        labels_next = [[TOK(t, add_special_tokens=False)["input_ids"][0]] for t in texts]
    else:
        labels_next = [p + [SEP] for p in pieces]
    T = max(len(p) for p in pieces) + 1
    B = len(texts)
    dec_ids = torch.full((B, T), PAD, dtype=torch.long)
    dec_am = torch.zeros((B, T), dtype=torch.long)
    labels = torch.full((B, T), -100, dtype=torch.long)
    for b, p in enumerate(pieces):
        n = len(p) + 1
        dec_ids[b, :n] = torch.tensor([CLS] + p)
        dec_am[b, :n] = 1
        labels[b, :n] = torch.tensor(labels_next[b])
    return dec_ids, dec_am, labels


def run_teacher(case: str) -> None:
    name, sources, targets = TEACHER[case]
    model = load_model(name)
    ids, am, tt = encode_sources(sources)
    dec_ids, dec_am, labels = encode_targets(targets, first_only=(case == "dec_single"))
    B, S = ids.shape
    T = dec_ids.shape[1]
    if B > 1:
        lens, tlens = am.sum(1).tolist(), dec_am.sum(1).tolist()
        assert lens[0] != lens[1] and tlens[0] != tlens[1], (case, lens, tlens)
    else:
        assert am.all() and T == 1 and dec_ids[0, 0] == CLS
    t = {"input_ids": ids, "attention_mask": am, "token_type_ids": tt, "decoder_input_ids": dec_ids,
         "decoder_attention_mask": dec_am, "labels": labels}
    kwargs = dict(input_ids=ids, attention_mask=am, token_type_ids=tt, decoder_input_ids=dec_ids,
                  decoder_attention_mask=dec_am, labels=labels, output_attentions=True, output_hidden_states=True,
                  use_cache=False, return_dict=True)
    model.zero_grad(set_to_none=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # EncoderDecoderModel's loss DEPRECATION_WARNING
        out = model(**kwargs)
    Le, Ld = model.config.encoder.num_hidden_layers, model.config.decoder.num_hidden_layers
    store_states(t, out, Le, "encoder_")
    store_states(t, out, Ld, "decoder_")
    assert len(out.cross_attentions) == Ld
    for i, a in enumerate(out.cross_attentions):
        t[f"cross_attentions.{i}"] = a.detach()
    t["logits"] = out.logits.detach()
    assert torch.equal(out.encoder_last_hidden_state, out.encoder_hidden_states[-1])
    projected = hasattr(model, "enc_to_dec_proj")
    if projected:
        with torch.no_grad():
            t["encoder_projected"] = model.enc_to_dec_proj(out.encoder_last_hidden_state)

    with torch.no_grad():
        # the loss is CrossEntropyLoss() (mean over labels != -100) of the logits
        ref = torch.nn.functional.cross_entropy(out.logits.reshape(-1, N_VOCAB), labels.view(-1), ignore_index=-100)
        assert torch.allclose(ref, out.loss, rtol=1e-6, atol=1e-6), (case, ref, out.loss)
        # with right padding the decoder_attention_mask only changes the padded query rows
        k2 = {k: v for k, v in kwargs.items() if k not in ("decoder_attention_mask", "labels")}
        again = model(**k2)
        real = dec_am.bool()
        assert torch.allclose(again.logits[real], out.logits[real], atol=1e-5), case
        # the token type ids are zeros: passing none at all changes nothing
        k3 = {k: v for k, v in kwargs.items() if k not in ("token_type_ids", "labels")}
        assert torch.equal(model(**k3).logits, out.logits), case

    out.loss.backward()
    t["loss"] = out.loss.detach().reshape(1)
    grad_none = store_grads(t, model, set(file_keys(MODELS / name)), case)
    assert grad_none == ["encoder.pooler.dense.weight", "encoder.pooler.dense.bias"], (case, grad_none)
    grad_zero = sorted(n[len("grad."):] for n, g in t.items() if n.startswith("grad.") and not g.abs().max() > 0)
    # T = 1: the decoder self-attention softmax runs over a single key (weight exactly 1), so its query and key
    # projections get exactly zero gradients
    want_zero = sorted(f"decoder.bert.encoder.layer.{i}.attention.self.{w}.{k}" for i in range(Ld)
                       for w in ("query", "key") for k in ("weight", "bias")) if T == 1 else []
    assert grad_zero == want_zero, (case, grad_zero)

    md = {"model": rel(MODELS / name), "case": case, "generator": GENERATOR, "versions": VERSIONS,
          "grad_none": ",".join(grad_none),
          "grad_zero": ",".join(grad_zero),
          "tied": ",".join(f"{a}={s}" for a, s in sorted(DECODER_TIED.items())),
          "decoder_start_token_id": str(CLS), "pad_token_id": str(PAD), "eos_token_id": str(SEP)}
    for b in range(B):
        md[f"text.{b}"] = sources[b]
        md[f"target.{b}"] = targets[b]
    md["note"] = ("decoder_input_ids = [decoder_start_token_id] + target word pieces, right-padded with pad_token_id; "
                  "labels = target word pieces + [eos], -100 on pads; decoder_attention_mask passed explicitly; "
                  "token_type_ids (zeros) go to the encoder, the decoder gets none (HF uses zeros); "
                  "loss = CrossEntropyLoss() mean over labels != -100; eval mode, eager attention, use_cache=False")
    if case == "dec_single":
        md["note"] = ("first decoding step: decoder_input_ids = [decoder_start_token_id] (T = 1), labels = the "
                      "first target word piece; " + md["note"].split("; ", 2)[2])
    if projected:
        md["note"] += ("; encoder_projected = enc_to_dec_proj(encoder_hidden_states.last): the cross-attention "
                       "keys/values input (encoder_hidden_states.* are the encoder's own, unprojected)")
    t = {k: v.contiguous().to(torch.float32) if v.dtype.is_floating_point else v.contiguous().to(torch.int64)
         for k, v in t.items()}
    save_canonical(t, REF / f"{case}.safetensors", md)


# --------------------------------------------------------------------------
# 4. generation
# --------------------------------------------------------------------------

GEN_SOURCES = [
    "the cat sat on the mat because it was tired.",
    "paris is the capital of france.",
    "the old man went to the store and bought a gallon of milk.",
    "a little bird can sing in the tree.",
]
GREEDY_KW = dict(max_new_tokens=8, do_sample=False, num_beams=1, return_dict_in_generate=True, output_scores=True,
                 output_logits=True)
BEAM_KW = dict(max_new_tokens=8, do_sample=False, num_beams=3, length_penalty=1.0, return_dict_in_generate=True,
               output_scores=True)
TOP_K = 5


def floats(x) -> list:
    return [float(v) for v in np.asarray(x, dtype=np.float32).reshape(-1)]


def full_logits(model, ids, am, prefix: list) -> torch.Tensor:
    """Last-position logits of a full (no cache) forward of the decoder prefix."""
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=am, decoder_input_ids=torch.tensor([prefix]), use_cache=False)
    return out.logits[0, -1]


def make_generate_json() -> None:
    name = "enc_dec"
    model = load_model(name)
    gc = model.generation_config
    cases = []
    warned = []
    for text in GEN_SOURCES:
        e = TOK(text, return_tensors="pt")
        ids, am = e["input_ids"].long(), e["attention_mask"].long()
        transformers.logging.set_verbosity_warning()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            g = model.generate(ids, attention_mask=am, **GREEDY_KW)
            bm = model.generate(ids, attention_mask=am, **BEAM_KW)
        transformers.logging.set_verbosity_error()
        warned += [str(x.message) for x in w]
        seq = g.sequences[0].tolist()
        assert seq[0] == CLS and len(g.scores) == len(seq) - 1
        steps = []
        for i, (sc, lg) in enumerate(zip(g.scores, g.logits)):
            assert torch.equal(sc, lg), "a logits processor changed the greedy scores"
            lp = torch.log_softmax(sc[0], dim=-1)
            top = torch.topk(lp, TOP_K)
            assert int(top.indices[0]) == seq[i + 1]
            # the KV-cached step equals a full recompute of the prefix
            assert torch.allclose(full_logits(model, ids, am, seq[: i + 1]), sc[0], atol=1e-4), (text, i)
            steps.append({"top_ids": top.indices.tolist(), "top_logprobs": floats(top.values),
                          "chosen_logprob": float(lp[seq[i + 1]])})
        stopped = seq[-1] == SEP
        assert stopped or len(seq) == 1 + GREEDY_KW["max_new_tokens"]
        assert SEP not in seq[1:-1]

        bseq = bm.sequences[0].tolist()
        trans = model.compute_transition_scores(bm.sequences, bm.scores, bm.beam_indices, normalize_logits=False)
        n_gen = len(bseq) - 1  # generated tokens (eos included), the start token excluded
        tr = trans[0, :n_gen]
        score = float(bm.sequences_scores[0])
        assert abs(float(tr.sum()) / n_gen ** BEAM_KW["length_penalty"] - score) < 1e-4, (text, tr.sum(), score)
        # each transition score = log_softmax of a full recompute of the beam's prefix
        for i in range(n_gen):
            lp = torch.log_softmax(full_logits(model, ids, am, bseq[: i + 1]), dim=-1)
            assert abs(float(lp[bseq[i + 1]]) - float(tr[i])) < 1e-4, (text, i)
        cases.append({
            "source": text,
            "input_ids": ids[0].tolist(),
            "attention_mask": am[0].tolist(),
            "greedy": {"sequence": seq, "stopped_at_eos": stopped, "steps": steps},
            "beam": {"sequence": bseq, "sequences_score": score, "sum_logprobs": float(tr.sum()),
                     "n_generated": n_gen, "stopped_at_eos": bseq[-1] == SEP,
                     "beam_indices": bm.beam_indices[0, :n_gen].tolist(), "transition_logprobs": floats(tr)},
        })
    assert not warned, warned
    n_eos = sum(c["greedy"]["stopped_at_eos"] for c in cases)
    doc = {
        "model": rel(MODELS / name),
        "generator": GENERATOR,
        "versions": VERSIONS,
        "transformers_version": transformers.__version__,
        "seed_note": SEED_NOTE,
        "generation_config": {k: getattr(gc, k) for k in ("decoder_start_token_id", "pad_token_id", "eos_token_id",
                                                          "bos_token_id")},
        "greedy_kwargs": {k: v for k, v in GREEDY_KW.items()},
        "beam_kwargs": {k: v for k, v in BEAM_KW.items()} | {"early_stopping": "default (False)"},
        "call": "model.generate(input_ids, attention_mask=attention_mask, **kwargs), batch 1, no padding",
        "notes": [
            "sequence = [decoder_start_token_id] + generated ids; at most 1 + max_new_tokens ids",
            f"greedy stops at eos ([SEP]={SEP}): the eos is the last id of the sequence (stopped_at_eos); "
            f"{n_eos} of {len(cases)} greedy runs here stop at eos, the others run to max_new_tokens",
            "greedy scores = the raw last-position logits (no logits processor is active: checked against "
            "output_logits); top_logprobs = log_softmax of them; steps[i] predicts sequence[i + 1]",
            "beam: per step log_softmax(logits) is added to each running beam's sum; a finished hypothesis "
            "(eos, or max length reached) scores sum_logprobs / n_generated ** length_penalty, where n_generated "
            "counts the generated ids including the eos and excluding the start token (cur_len + 1 - "
            "decoder_prompt_len with decoder_prompt_len = 1)",
            "beam: early_stopping=False: search goes on while the best running beam's sum / (tokens generated so far) "
            "** length_penalty could still beat the worst of the num_beams finished hypotheses",
            "beam_indices[i]: the beam (0..num_beams-1) the i-th generated token extended; transition_logprobs "
            "from compute_transition_scores (normalize_logits=False), sum / n_generated = sequences_score",
            "every greedy and beam step was re-checked against a full (no KV cache) forward of the prefix",
        ],
        "cases": cases,
    }
    GENERATE_JSON.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"  dec_generate.json: {len(cases)} sources, greedy stops at eos in {n_eos}; greedy "
          f"{[len(c['greedy']['sequence']) for c in cases]} ids, beam {[len(c['beam']['sequence']) for c in cases]}")


# --------------------------------------------------------------------------
# verification
# --------------------------------------------------------------------------

def check_tokenizer_folders() -> None:
    probes = GEN_SOURCES + [s for v in TEACHER.values() for s in v[1] + v[2]] + ["Hello, WORLD!", "naïve ok"]
    for name in MODELS_SPEC:
        full = BertTokenizerFast.from_pretrained(MODELS / name)
        assert full.model_max_length == MAX_LEN and len(full) == N_VOCAB
        with tempfile.TemporaryDirectory() as tmp:
            for f in ("vocab.txt", "tokenizer_config.json"):
                shutil.copyfile(MODELS / name / f, Path(tmp) / f)
            alone = BertTokenizerFast.from_pretrained(tmp)
            for s in probes:
                assert alone(s)["input_ids"] == full(s)["input_ids"] == TOK(s)["input_ids"], (name, s)


def verify(shapes: dict) -> None:
    print("\nverify")
    check_tokenizer_folders()
    rows = []
    for case, (name, sources, targets) in TEACHER.items():
        path = REF / f"{case}.safetensors"
        with safe_open(str(path), "np") as f:
            md = f.metadata()
            t = {k: f.get_tensor(k) for k in f.keys()}
        assert md["model"] == rel(MODELS / name)
        cfg = json.loads((ROOT / md["model"] / "config.json").read_text())
        ec, dc = cfg["encoder"], cfg["decoder"]
        assert cfg["decoder_start_token_id"] == CLS and cfg["pad_token_id"] == PAD and cfg["eos_token_id"] == SEP
        assert dc["eos_token_id"] == SEP and dc["is_decoder"] and dc["add_cross_attention"]
        B, S = t["input_ids"].shape
        T = t["decoder_input_ids"].shape[1]
        V = cfg["vocab_size"]
        for k in ("input_ids", "attention_mask", "token_type_ids", "decoder_input_ids", "decoder_attention_mask",
                  "labels"):
            assert t[k].dtype == np.int64, (case, k)
        am, dam = t["attention_mask"].astype(bool), t["decoder_attention_mask"].astype(bool)
        assert (t["token_type_ids"] == 0).all() and am[:, 0].all() and dam[:, 0].all()
        assert ((t["input_ids"] == PAD) == ~am).all() and ((t["decoder_input_ids"] == PAD) == ~dam).all()
        assert (t["decoder_input_ids"][:, 0] == CLS).all()
        lab = t["labels"]
        assert (lab[~dam] == -100).all() and (lab[dam] >= 0).all()
        if case != "dec_single":
            assert (am.sum(1) < S).any() and (dam.sum(1) < T).any(), (case, "right padding")
            for b in range(B):  # labels = decoder_input_ids shifted left, eos last
                n = dam[b].sum()
                assert (lab[b, : n - 1] == t["decoder_input_ids"][b, 1:n]).all() and lab[b, n - 1] == SEP
        else:
            assert B == 1 and T == 1 and am.all()

        def attn(key, n_layers, nh, q_len, k_len, key_mask, causal):
            devs = []
            for i in range(n_layers):
                a = t[f"{key}.{i}"]
                assert a.dtype == np.float32 and a.shape == (B, nh, q_len, k_len), (case, key, i, a.shape)
                assert np.allclose(a.sum(-1), 1.0, atol=1e-5), (case, key, i)
                assert (a * ~key_mask[:, None, None, :] == 0).all(), (case, key, i, "padded keys get attention")
                if causal:
                    assert (np.triu(np.ones((q_len, k_len), bool), 1)[None, None] * a == 0).all(), (case, key, i)
                for b in range(B):
                    n = key_mask[b].sum()
                    if n > 1:
                        row = a[b][:, :, key_mask[b]]
                        devs.append(np.abs(row - 1.0 / n).max(-1).mean())
            return devs

        devs = attn("encoder_attentions", ec["num_hidden_layers"], ec["num_attention_heads"], S, S, am, False)
        devs += attn("cross_attentions", dc["num_hidden_layers"], dc["num_attention_heads"], T, S, am, False)
        attn("decoder_attentions", dc["num_hidden_layers"], dc["num_attention_heads"], T, T, dam, True)
        assert min(devs) > 0.05, (case, "attention too uniform", min(devs))
        for pre, L, H, mask in (("encoder", ec["num_hidden_layers"], ec["hidden_size"], am),
                                ("decoder", dc["num_hidden_layers"], dc["hidden_size"], dam)):
            for i in range(L + 1):
                h = t[f"{pre}_hidden_states.{i}"]
                assert h.dtype == np.float32 and h.shape == (B, mask.shape[1], H), (case, pre, i)
                assert np.isfinite(h).all() and h[mask].std() > 0.1, (case, pre, i)
        if ec["hidden_size"] != dc["hidden_size"]:
            assert t["encoder_projected"].shape == (B, S, dc["hidden_size"])
            w = file_keys(MODELS / name)
            ref = t[f"encoder_hidden_states.{ec['num_hidden_layers']}"] @ w["enc_to_dec_proj.weight"].numpy().T \
                + w["enc_to_dec_proj.bias"].numpy()
            assert np.allclose(ref, t["encoder_projected"], atol=1e-5)
        else:
            assert "encoder_projected" not in t
        lg = t["logits"]
        assert lg.shape == (B, T, V) and lg[dam].std() > 0.1
        # the loss from the logits: mean cross entropy over labels != -100
        x = lg[lab != -100].astype(np.float64)
        lse = np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1)) + x.max(-1)
        ce = (lse - x[np.arange(len(x)), lab[lab != -100]]).mean()
        assert t["loss"].shape == (1,) and abs(ce - t["loss"][0]) < 1e-5, (case, ce, t["loss"])

        none = set(md["grad_none"].split(","))
        assert none == {"encoder.pooler.dense.weight", "encoder.pooler.dense.bias"}
        grads = {k[len("grad."):] for k in t if k.startswith("grad.")}
        assert grads == set(shapes[name]) - none, (case, sorted(grads ^ set(shapes[name])))
        zero = set(md["grad_zero"].split(",")) - {""}
        assert bool(zero) == (T == 1), (case, zero)
        for n in grads:
            g = t[f"grad.{n}"]
            assert list(g.shape) == shapes[name][n], (case, n)
            assert np.isfinite(g).all() and (np.abs(g).max() > 0) == (n not in zero), (case, n, "zero grad")
        # nn.Embedding padding_idx: the encoder's [PAD] row gets no gradient (the decoder's gets one through the
        # tied output layer)
        assert (t["grad.encoder.embeddings.word_embeddings.weight"][PAD] == 0).all()
        rows.append((case, md["model"], len(t), path.stat().st_size, f"{B}x{S}->{T}", f"{t['loss'][0]:.5f}"))

    doc = json.loads(GENERATE_JSON.read_text())
    assert doc["transformers_version"] == transformers.__version__ and len(doc["cases"]) == len(GEN_SOURCES)
    for c in doc["cases"]:
        g = c["greedy"]
        assert len(g["steps"]) == len(g["sequence"]) - 1
        assert all(s["top_logprobs"] == sorted(s["top_logprobs"], reverse=True) for s in g["steps"])

    print(f"\n{'case':<16} {'model':<32} {'BxS->T':>7} {'tensors':>7} {'bytes':>8} {'loss':>9}")
    for case, m, n, size, bt, loss in rows:
        print(f"{case:<16} {m:<32} {bt:>7} {n:>7} {size:>8} {loss:>9}")
    mine = sorted([p for name in MODELS_SPEC for p in (MODELS / name).rglob("*") if p.is_file()]
                  + [REF / f"{case}.safetensors" for case in TEACHER] + [GENERATE_JSON])
    total = sum(p.stat().st_size for p in mine)
    print(f"\nfiles written by this script: {len(mine)}, {total} bytes ({total / 2**20:.2f} MiB)")
    for p in mine:
        print(f"  {hashlib.sha256(p.read_bytes()).hexdigest()[:16]}  {p.stat().st_size:>8}  {rel(p)}")
    assert total < 1_500_000, "decoder fixtures exceed ~1.5 MB"


def main() -> None:
    print(VERSIONS)
    print("1. models")
    shapes = {}
    for name in MODELS_SPEC:
        shapes[name] = make_model(name)
        proj = {k: v for k, v in shapes[name].items() if k.startswith("enc_to_dec_proj")}
        print(f"  {name}: {len(shapes[name])} tensors; pooler "
              f"{'encoder.pooler.dense.weight' in shapes[name]}; enc_to_dec_proj {proj or '-'}")
    print("2. teacher-forcing cases")
    REF.mkdir(parents=True, exist_ok=True)
    for case in TEACHER:
        run_teacher(case)
    print("3. generation")
    make_generate_json()
    verify(shapes)
    print("ok")


if __name__ == "__main__":
    main()
