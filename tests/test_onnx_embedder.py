"""The ONNX backend with a small real model and tokenizer built here (no download)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import write_jsonl

VOCAB = [
    "[UNK]",
    "[PAD]",
    "the",
    "user",
    "is",
    "allergic",
    "to",
    "peanuts",
    "lives",
    "in",
    "berlin",
    "plays",
    "violin",
    "query:",
    "passage:",
    "allergy",
    "peanut",
    "city",
]


def build_model(directory, dimension: int = 8) -> None:
    """A real ONNX graph: token embeddings looked up and masked, (batch, tokens, dim) out."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    directory.mkdir(parents=True, exist_ok=True)
    table = np.random.default_rng(7).normal(size=(len(VOCAB), dimension)).astype(np.float32)
    # Near-synonyms share most of their vector, as a trained model would make them.
    index = {word: position for position, word in enumerate(VOCAB)}
    table[index["allergy"]] = table[index["allergic"]] + 0.1
    table[index["peanut"]] = table[index["peanuts"]] + 0.1
    table[index["city"]] = table[index["berlin"]] + 0.3
    for word in ("the", "user", "is", "to", "in", "query:", "passage:", "[PAD]", "[UNK]"):
        table[index[word]] *= 0.05  # function words carry little, as in a trained model
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["vectors"], axis=0),
        helper.make_node("Cast", ["attention_mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_float", "axis"], ["mask_3d"]),
        helper.make_node("Mul", ["vectors", "mask_3d"], ["last_hidden_state"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", dimension]
            )
        ],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))
    tokenizer = Tokenizer(
        models.WordLevel({word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]")
    )
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(directory / "tokenizer.json"))


def test_the_onnx_embedder_pools_and_normalises(tmp_path):
    from vm_memory_oracle.embed.onnx import OnnxEmbedder

    build_model(tmp_path / "tiny")
    embedder = OnnxEmbedder(tmp_path / "tiny")
    assert embedder.dimension == 8
    assert embedder.model_id.startswith("onnx-tiny-") and "-mean-" in embedder.model_id
    alone = embedder.embed_passages(["the user"])
    # Padding in a batch with a longer text does not change the vector (the mask is used).
    batched = embedder.embed_passages(["the user", "the user lives in berlin plays violin"])
    assert np.allclose(alone[0], batched[0], atol=1e-6)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0)
    cls = OnnxEmbedder(tmp_path / "tiny", pooling="cls")
    assert cls.model_id != embedder.model_id


def test_recall_through_an_onnx_model_directory(cli, tmp_path, data_dir):
    build_model(tmp_path / "tiny")
    cli("--action", "init")
    cli("--action", "config", "--set", f"embedding_model={tmp_path / 'tiny'}")
    cli("--action", "config", "--set", "semantic_min_similarity=0.2")
    facts = [
        {
            "subject": "user",
            "predicate": "is allergic to",
            "object": "peanuts",
            "text": "the user is allergic to peanuts",
        },
        {
            "subject": "user",
            "predicate": "lives in",
            "object": "Berlin",
            "text": "the user lives in berlin",
        },
        {
            "subject": "user",
            "predicate": "plays",
            "object": "the violin",
            "text": "the user plays the violin",
        },
    ]
    cli("--action", "remember", "--from", str(write_jsonl(tmp_path / "f.jsonl", facts)))
    result = cli("--json", "--action", "recall", "--query", "allergy", "--no-boost")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["embedder"].startswith("onnx-tiny-")
    assert "embedder_fallback" not in payload
    assert payload["results"][0]["object"] == "peanuts"
    assert payload["results"][0]["matched"] == ["semantic"]


def test_a_directory_without_a_model_is_refused_with_its_path(tmp_path):
    from vm_memory_oracle.embed.onnx import OnnxEmbedder
    from vm_memory_oracle.errors import EmbedderUnavailable

    (tmp_path / "empty").mkdir()
    with pytest.raises(EmbedderUnavailable, match="empty/model.onnx not found"):
        OnnxEmbedder(tmp_path / "empty")
    build_model(tmp_path / "tiny")
    with pytest.raises(EmbedderUnavailable, match="CUDA"):
        import onnxruntime

        if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            pytest.skip("this machine has CUDA")
        OnnxEmbedder(tmp_path / "tiny", device="cuda")
