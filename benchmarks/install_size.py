"""What ``pip install`` of this project pulls: distributions, disk size, the heaviest parts.

Creates a throwaway virtual environment, installs the project into it (optionally with
extras) from the package index, and prints

- the number of installed distributions (``pip list``, pip itself included) and the size of
  the environment on disk;
- for each direct dependency, what it alone brings (packages reachable only through it);
- the largest distributions and who requires them.

Usage::

    python benchmarks/install_size.py            # plain `pip install .`
    python benchmarks/install_size.py dev,inspect   # what `make test` / `make demo` install

Needs the package index (or a warm pip cache); takes a few minutes. Figures of a run are in
the README ("Install size").
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside the new environment: sizes and dependency closures from its metadata.
_PROBE = r"""
import json, re, sys
from importlib import metadata
from pathlib import Path

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

dists = {norm(d.metadata["Name"]): d for d in metadata.distributions()}

def size(d):
    total = 0
    for f in d.files or []:
        try:
            total += Path(d.locate_file(f)).stat().st_size
        except OSError:
            pass
    return total

def requires(name):
    out = []
    for r in dists[name].requires or []:
        if "extra ==" in r:
            continue
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r)
        if m and norm(m.group(1)) in dists:
            out.append(norm(m.group(1)))
    return out

print(json.dumps({
    "sizes": {n: size(d) for n, d in dists.items()},
    "requires": {n: requires(n) for n in dists},
}))
"""


def _closure(roots: list[str], requires: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack += requires.get(name, [])
    return seen


def _disk_mb(path: Path) -> float:
    files = (p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.stat().st_size for p in files) / 1e6


def main(extras: str = "") -> None:
    """Install into a fresh environment and print the figures."""
    with tempfile.TemporaryDirectory(prefix="install-size-") as tmp:
        env = Path(tmp) / "venv"
        venv.create(env, with_pip=True)
        python = env / ("Scripts" if sys.platform == "win32" else "bin") / "python"
        # build from a copy without the local virtual environment and caches
        src = Path(tmp) / "src"
        shutil.copytree(
            ROOT, src, ignore=shutil.ignore_patterns(".venv", ".git", "*_cache", "results")
        )
        target = f"{src}[{extras}]" if extras else str(src)
        subprocess.run([python, "-m", "pip", "install", "-q", target], check=True)
        listed = subprocess.run(
            [python, "-m", "pip", "list", "--format=json"], capture_output=True, check=True
        )
        n_dists = len(json.loads(listed.stdout))
        probe = subprocess.run([python, "-c", _PROBE], capture_output=True, check=True, text=True)
        data = json.loads(probe.stdout)
        sizes, requires = data["sizes"], data["requires"]
        print(f"pip install {'.[' + extras + ']' if extras else '.'}:")
        print(f"  {n_dists} distributions, {_disk_mb(env):.0f} MB on disk")
        direct = requires["reliability-lab"]
        everything = _closure(direct, requires)
        print("  brought in only through each direct dependency:")
        for dep in sorted(direct):
            alone = _closure([dep], requires) - _closure([d for d in direct if d != dep], requires)
            mb = sum(sizes[n] for n in alone) / 1e6
            print(f"    {dep:22s} {len(alone):3d} packages {mb:7.1f} MB")
        print("  largest distributions:")
        for name in sorted(everything, key=lambda n: -sizes[n])[:12]:
            parents = sorted(p for p in requires if name in requires[p])
            print(f"    {name:24s} {sizes[name] / 1e6:7.1f} MB  <- {', '.join(parents[:3])}")


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    if arg and not re.fullmatch(r"[a-z0-9_,-]+", arg):
        sys.exit(f"usage: {sys.argv[0]} [EXTRA,EXTRA...]")
    main(arg)
