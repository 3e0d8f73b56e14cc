import numpy as np
import pytest

from studio.weights import compact_arrays, load_npz, save_npz


def test_embeddings_are_stored_as_int8_rows_and_read_back_within_half_a_step(tmp_path):
    rng = np.random.default_rng(0)
    embeddings = rng.normal(0, 0.05, (50, 16)).astype(np.float32)
    embeddings[0] = 0  # a padding row
    embeddings[1] *= 40  # one row far larger than the others keeps its own scale
    arrays = {"model/source_embedding/embeddings": embeddings,
              "model/encoder_0/ffn/inner/kernel": rng.normal(0, 0.05, (16, 32)).astype(np.float32),
              "model/step": np.array(7, np.int64)}
    compact = compact_arrays(arrays)
    assert compact["model/source_embedding/embeddings"].dtype == np.int8
    assert compact["model/source_embedding/embeddings.row_scale"].shape == (50, 1)
    assert compact["model/encoder_0/ffn/inner/kernel"].dtype == np.float16
    assert compact["model/step"].dtype == np.int64

    save_npz(tmp_path / "w.npz", compact)
    loaded = load_npz(tmp_path / "w.npz")
    assert set(loaded) == set(arrays)
    step = np.abs(embeddings).max(axis=1, keepdims=True) / 127
    error = np.abs(loaded["model/source_embedding/embeddings"] - embeddings)
    assert np.all(error <= step * 0.51 + 1e-6) and not loaded["model/source_embedding/embeddings"][0].any()
    np.testing.assert_allclose(loaded["model/encoder_0/ffn/inner/kernel"], arrays["model/encoder_0/ffn/inner/kernel"],
                               atol=1e-4)


def test_a_row_scale_without_its_int8_matrix_is_named(tmp_path):
    compact = compact_arrays({"model/source_embedding/embeddings": np.ones((4, 3), np.float32)})
    compact["model/source_embedding/embeddings"] = compact["model/source_embedding/embeddings"].astype(np.float16)
    save_npz(tmp_path / "w.npz", compact)
    with pytest.raises(ValueError, match="embeddings.row_scale does not scale the rows of an int8"):
        load_npz(tmp_path / "w.npz")
