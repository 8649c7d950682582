"""A model file whose entries inflate far beyond its size (a zip bomb) is refused before any
entry is inflated; a model saved compressed is always one load accepts."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest

from conftest import run_cli
from learnsim import persistence
from learnsim.persistence import ModelFormatError, _ExampleState, load, save

ZEROS = 2 ** 20          # float64: 8 MiB, which deflate packs into about 8 KiB


@pytest.fixture
def small_allowance(monkeypatch):
    monkeypatch.setattr(persistence, "INFLATION_ALLOWANCE", 1 << 20)


def _deflated_copy(path, out):
    """The same entries, each deflated at the highest level, as a tampered file would be."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    return out


@pytest.fixture
def bomb(tmp_path):
    plain = save(_ExampleState({"n": 1}, {"zeros": np.zeros(ZEROS)}), tmp_path / "plain.npz")
    return _deflated_copy(plain, tmp_path / "bomb.npz")


def test_a_file_that_inflates_a_thousandfold_is_refused_unread(bomb, small_allowance, monkeypatch):
    # a 17 MB file whose manifest and entry agreed on a 4 GB array of zeros was inflated whole
    # (4 GB of memory, 42 s) before its checksum refused it
    def read(*args):
        raise AssertionError("an entry was inflated")

    monkeypatch.setattr(persistence, "_read_entry", read)
    size = bomb.stat().st_size
    assert size * 100 < ZEROS * 8
    with pytest.raises(ModelFormatError, match=r"bomb\.npz: its entries inflate to \d+ bytes from a file of "
                                               rf"{size} bytes, more than 100 times.*refused unread"):
        load(bomb)
    with pytest.raises(ModelFormatError, match="refused unread"):
        persistence.read_manifest(bomb)


def test_under_the_allowance_the_same_file_loads(bomb):
    # the ratio alone refuses nothing: a small model of mostly zeros saved compressed is read
    assert np.array_equal(load(bomb).arrays["zeros"], np.zeros(ZEROS))


def test_a_model_saved_compressed_always_loads(tmp_path, small_allowance):
    # save(compress=True) of an array of zeros would pack it as a bomb does: it is stored instead
    state = _ExampleState({"n": 1}, {"zeros": np.zeros(ZEROS), "noise": np.random.default_rng(0).normal(size=64)})
    path = save(state, tmp_path / "zeros.npz", compress=True)
    back = load(path)
    assert np.array_equal(back.arrays["zeros"], state.arrays["zeros"])
    assert np.array_equal(back.arrays["noise"], state.arrays["noise"])
    # and an ordinary compressed model stays compressed
    small = save(_ExampleState({"n": 1}, {"zeros": np.zeros(1000)}), tmp_path / "small.npz", compress=True)
    with zipfile.ZipFile(small) as archive:
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())


def test_the_command_line_says_so_in_one_line(bomb, small_allowance, tmp_path):
    corpus = tmp_path / "docs.tsv"
    corpus.write_text("d1\tlava flows\nd2\tgoal scored\n", encoding="utf-8")
    code, out, err = run_cli(["search", "--model", bomb, "--corpus", corpus, "--query", "lava"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err[-2000:]
    assert "inflate" in err and "bomb.npz" in err
