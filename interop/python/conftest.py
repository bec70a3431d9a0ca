"""Fixtures: the replay binary and the tables the checks read, made once."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(ROOT, "samples", "bfs-kron12.trace.zst")
HOSTSYNC = os.path.join(ROOT, "interop", "testdata", "hostsync.jsonl")
sys.path.insert(0, os.path.dirname(__file__))


def run(*args, cwd=None):
    subprocess.run(args, check=True, cwd=cwd or ROOT, stdout=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def replay(tmp_path_factory):
    """The replay command, built from this checkout (or $REPLAY)."""
    if os.environ.get("REPLAY"):
        return os.environ["REPLAY"]
    exe = str(tmp_path_factory.mktemp("bin") / "replay")
    run("go", "build", "-o", exe, "./cmd/replay")
    return exe


@pytest.fixture(scope="session")
def outs(replay, tmp_path_factory):
    """Tables in every format: the README's main command (with a sweep, so
    params is not empty), a generated pipeline under the host I/O
    stages (pages and stages rows), and a trace of the host's blocking
    calls (syncs rows). Keys: (run, format) -> directory."""
    base = tmp_path_factory.mktemp("tables")
    hotspot = str(base / "hotspot.trace.zst")
    run(replay, "gen", "hotspot", "-o", hotspot)
    made = {}
    for fmt in ("parquet", "arrow", "csv"):
        d = str(base / f"sample-{fmt}")
        run(replay, "-q", f"--format={fmt}", "--out", d, "--policy=cdp,flat,threshold",
            "--sweep", "launch.threshold=32,64", SAMPLE)
        made[("sample", fmt)] = d
        d = str(base / f"hotspot-{fmt}")
        run(replay, "-q", f"--format={fmt}", "--out", d, "--gpu=gk110-64", "--policy=baseline,crcs", hotspot)
        made[("hotspot", fmt)] = d
        d = str(base / f"hostsync-{fmt}")
        run(replay, "-q", f"--format={fmt}", "--out", d, "--policy=cdp,flat", HOSTSYNC)
        made[("hostsync", fmt)] = d
    return made


@pytest.fixture(scope="session")
def study(replay, tmp_path_factory):
    """A study's hive-partitioned dataset, run as two shards."""
    base = tmp_path_factory.mktemp("study")
    plan = str(base / "study.jsonl")
    out = str(base / "out")
    run(replay, "study", "plan", "--policy=cdp,dtbl", "--sweep", "gpu.sms=8,13", SAMPLE, "-o", plan)
    for shard in ("0/2", "1/2"):
        run(replay, "study", "run", plan, "--out", out, "--shard", shard)
    return out
