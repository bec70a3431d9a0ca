"""The quickstart notebook is committed without outputs (CI executes it:
.ci/run runs `jupyter nbconvert --to notebook --execute` on it)."""

import json
import os

from conftest import ROOT


def test_notebook_has_no_outputs():
    nb = json.load(open(os.path.join(ROOT, "docs", "notebooks", "quickstart.ipynb")))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, \
                f"cell {i} has outputs: clear them (jupyter nbconvert --clear-output --inplace)"
