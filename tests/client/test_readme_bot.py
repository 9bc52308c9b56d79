"""The README's bot loop (the block after `<!-- bot-loop -->`) runs as written, through the client package
alone (the virtualenv holding nothing else), against a real service on loopback: its main line and its
randomly chosen best moves both play the game out in the position's remoteness."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from service.server import BoundPorts

from .virtualenv import REPO


def readme_bot() -> str:
    readme = (REPO / "README.md").read_text()
    found = re.search(r"<!-- bot-loop -->\n```python\n(.*?)```", readme, re.DOTALL)
    assert found is not None, "the README has no bot loop"
    return found.group(1)


def test_the_readme_bot_loop_plays_best_moves(client_venv: Path, ports: BoundPorts, tmp_path: Path) -> None:
    code = readme_bot()
    assert "localhost:50051" in code and 'choose="random"' in code and "client.mainline(" in code
    script = tmp_path / "bot.py"
    script.write_text(code.replace("localhost:50051", f"127.0.0.1:{ports.grpc}"))
    runs = [
        subprocess.run([str(client_venv), "-I", str(script)], capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    for done in runs:
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("N 15 [") and lines[0].endswith("] terminal")
        assert len([line for line in lines if line.startswith("ply ")]) == 15
        assert re.fullmatch(r"seed \d+: the first player wins in 15 plies", lines[-1])
