"""The quickstart notebook is committed without outputs (CI executes it:
.ci/run runs `jupyter nbconvert --to notebook --execute` on it)."""

import base64
import io
import json
import os

from conftest import ROOT


def test_notebook_has_no_outputs():
    nb = json.load(open(os.path.join(ROOT, "docs", "notebooks", "quickstart.ipynb")))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, \
                f"cell {i} has outputs: clear them (jupyter nbconvert --clear-output --inplace)"


def _png(blank):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 1))
    if blank:
        ax.set_axis_off()
    else:
        ax.plot([0, 1], [0, 1])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def test_check_notebook_finds_missing_and_empty_figures():
    """check_notebook.py (run by .ci/run on the executed quickstart): a
    figure cell needs an image output, and the image must show something."""
    import check_notebook

    def cell(src, *pngs):
        return {"cell_type": "code", "source": [src],
                "outputs": [{"output_type": "display_data", "data": {"image/png": p}} for p in pngs]}

    good, blank = _png(False), _png(True)
    nb = {"cells": [cell("x = 1"), cell("ax = df.plot()\nplt.show()", good), cell("plt.show()"),
                    cell("df.plot.bar()", blank), {"cell_type": "markdown", "source": ["plt.show()"]}]}
    problems = check_notebook.check(nb)
    assert [p.split(":")[0] for p in problems] == ["cell 2", "cell 3, image 0"], problems
    assert "one colour" in problems[1]
    assert check_notebook.check({"cells": [cell("plt.show()", good)]}) == []
