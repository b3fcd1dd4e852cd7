"""The salience models can be trained again from the LoCoMo and LongMemEval dev data and
give what ships (benchmarks/salience_training.py; skill/vm_memory_oracle/extract/salience.json).

Vectors of the 4-bit model may differ in their last bits from one CPU to another, so the
weights are compared with a margin (0.05 each, and a correlation above 0.99), and the
held-out figures within 0.03.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from salience_training import train  # noqa: E402
from vm_memory_oracle.extract import salience  # noqa: E402

from locomo import dataset_path  # noqa: E402
from longmemeval import dataset_path as longmemeval_path  # noqa: E402


@pytest.mark.skipif(
    not dataset_path().exists(), reason=f"LoCoMo data not found at {dataset_path()}"
)
@pytest.mark.skipif(
    not longmemeval_path().exists(), reason=f"LongMemEval data not found at {longmemeval_path()}"
)
@pytest.mark.usefixtures("locomo_embeddings")  # the kept vectors it reads
def test_the_shipped_salience_model_is_what_the_training_script_gives(capsys):
    trained = train()
    shipped = json.loads(salience.WEIGHTS.read_text(encoding="utf-8"))  # the file as written
    assert trained["features"] == shipped["features"]
    assert set(trained["kinds"]) == set(shipped["kinds"]) == set(salience.KINDS)
    for kind in salience.KINDS:
        new_kind, old_kind = trained["kinds"][kind], shipped["kinds"][kind]
        assert np.allclose(new_kind["mean"], old_kind["mean"], atol=1e-4)
        assert len(new_kind["models"]) == len(old_kind["models"])
        for new, old in zip(new_kind["models"], old_kind["models"]):
            assert (new["model_id"], new["penalty"]) == (old["model_id"], old["penalty"])
            new_w, old_w = np.array(new["weights"]), np.array(old["weights"])
            assert np.max(np.abs(new_w - old_w)) < 0.05
            assert np.corrcoef(new_w, old_w)[0, 1] > 0.99
            assert abs(new["bias"] - old["bias"]) < 0.05
    people, shipped_people = trained["training"]["people"], shipped["training"]["people"]
    names = (shipped["kinds"]["people"]["models"][0]["model_id"], "features only")
    for name in names:
        for conversation, figures in shipped_people[name]["held_out"].items():
            again = people[name]["held_out"][conversation]
            assert abs(again["precision"] - figures["precision"]) <= 0.03
            assert abs(again["observation_coverage"] - figures["observation_coverage"]) <= 0.03
    # With an assistant the features alone are the same on every CPU: the figures are too.
    assistant = trained["training"]["assistant"]["features only"]
    assert assistant == shipped["training"]["assistant"]["features only"]
    # and the model of its own kind ranks evidence better, held out, on every question type
    for kind, value in assistant["held_out_auc"].items():
        assert value > assistant["people_model_auc"][kind], kind
    with capsys.disabled():
        print()
        for name in names:
            print(
                f"salience {name}: held out "
                + ", ".join(
                    f"{conv} {f['precision']:.3f}/{f['observation_coverage']:.3f}"
                    for conv, f in people[name]["held_out"].items()
                )
            )
        print(
            "salience with an assistant, held-out AUC (own model/people model): "
            + ", ".join(
                f"{kind} {value:.3f}/{assistant['people_model_auc'][kind]:.3f}"
                for kind, value in assistant["held_out_auc"].items()
            )
        )
