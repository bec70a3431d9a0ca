"""The README's and docs' table snippets run as written: every code block
right after a `<!-- tested: interop/python/test_snippets.py ... -->` line,
on the main command's out/ (or a study's, where the marker says so)."""

import os
import re
import subprocess
import sys

import duckdb
import pytest

from conftest import ROOT, SAMPLE

DOCS = ["README.md", os.path.join("docs", "scale-out.md"), os.path.join("docs", "tables.md")]
MARK = re.compile(r"<!-- tested: interop/python/test_snippets.py runs this block on (.*?) -->\n```(\w+)\n(.*?)```", re.S)


def blocks():
    found = []
    for doc in DOCS:
        text = open(os.path.join(ROOT, doc)).read()
        for i, (where, lang, code) in enumerate(MARK.findall(text)):
            found.append(pytest.param(where, lang, code, id=f"{doc}#{i}"))
    return found


def test_snippets_are_marked():
    assert len(blocks()) >= 5


@pytest.fixture(scope="module")
def main_out(replay, tmp_path_factory):
    """The README's main command, run where the snippets run."""
    d = tmp_path_factory.mktemp("main")
    subprocess.run([replay, "-q", "--policy=cdp,flat,threshold", "--set", "launch.threshold=64",
                    "--out", str(d / "out"), SAMPLE], check=True)
    return d


@pytest.mark.parametrize("where,lang,code", blocks())
def test_snippet(where, lang, code, main_out, study, tmp_path):
    if "study" in where:
        os.symlink(study, tmp_path / "out")
        cwd = tmp_path
    else:
        cwd = main_out
    link = os.path.join(cwd, "interop")
    if not os.path.exists(link):
        os.symlink(os.path.join(ROOT, "interop"), link, target_is_directory=True)
    if lang == "sql":
        old = os.getcwd()
        os.chdir(cwd)
        try:
            for stmt in [s for s in code.split(";") if s.strip()]:
                assert duckdb.sql(stmt).fetchall(), stmt
        finally:
            os.chdir(old)
        return
    assert lang == "python"
    env = dict(os.environ, MPLBACKEND="Agg")
    subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True, env=env)
