"""Output files: written whole, with the permissions any new file gets, and checked up front."""

import os
import stat

import numpy as np
import pandas as pd
import pytest

from elements_ai.core.params import ParameterError
from elements_ai.files import atomic_write, check_output_file, check_output_folder, write_text


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_writes_get_the_usual_permissions(tmp_path, umask_022):
    from elements_ai.agents.network import Network
    from elements_ai.solvers.policy import write_npz
    from elements_ai.tables import write_csv

    write_text(tmp_path / "a.txt", "a")
    write_csv(pd.DataFrame({"a": [1]}), tmp_path / "t.csv")
    write_npz(tmp_path / "p.npz", {"x": np.zeros(2)})
    rng = np.random.default_rng(0)
    layer = (rng.normal(size=(5, 4)), np.zeros(5))
    Network([layer], (rng.normal(size=(3, 5)), np.zeros(3)), (rng.normal(size=(2, 5)), np.zeros(2))).save(
        tmp_path / "n.npz"
    )
    for path in tmp_path.iterdir():
        assert mode(path) == 0o644, path
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_the_umask_decides_the_permissions(tmp_path):
    old = os.umask(0o077)
    try:
        write_text(tmp_path / "private.txt", "a")
    finally:
        os.umask(old)
    assert mode(tmp_path / "private.txt") == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "a.txt"
    write_text(path, "old")
    with pytest.raises(RuntimeError):
        with atomic_write(path, "w") as handle:
            handle.write("half")
            raise RuntimeError("stopped")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_output_paths_are_checked(tmp_path):
    (tmp_path / "file").write_text("")
    assert check_output_file(tmp_path / "x.npz") == tmp_path / "x.npz"
    with pytest.raises(ParameterError, match="folder .*/missing does not exist"):
        check_output_file(tmp_path / "missing" / "x.npz")
    with pytest.raises(ParameterError, match="is a folder"):
        check_output_file(tmp_path)
    with pytest.raises(ParameterError, match="file is a file, not a folder"):
        check_output_file(tmp_path / "file" / "x.npz")
    assert check_output_folder(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "file")
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "file" / "runs")
