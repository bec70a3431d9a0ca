"""Check an executed notebook's figures: every figure cell (a code cell
that draws with matplotlib: `plt.` or pandas' `.plot`) has at least one
image output, and no image is empty (it decodes, and is not one colour).

    python interop/python/check_notebook.py EXECUTED.ipynb [--save DIR]

.ci/run runs it on docs/notebooks/quickstart.ipynb after nbconvert has
executed it, so a plot cell that draws nothing fails CI. It needs the
notebook executed with matplotlib's inline backend (ipykernel's default):
under MPLBACKEND=Agg figures are drawn but never shown, so the cells have
no image outputs and this check fails. --save writes each image to DIR as
cellN-M.png (or .svg) for a look. Exits 1 naming the cells that fail.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import re
import sys

FIGURE = re.compile(r"\bplt\.|\.plot\b")
IMAGES = {"image/png": "png", "image/svg+xml": "svg"}


def figure_cells(nb: dict) -> list[int]:
    """The indices of the code cells that draw a figure."""
    return [i for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "code" and FIGURE.search("".join(c["source"]))]


def images(cell: dict) -> list[tuple[str, bytes]]:
    """The cell's image outputs as (format, bytes)."""
    out = []
    for o in cell.get("outputs", []):
        for mime, ext in IMAGES.items():
            if mime in o.get("data", {}):
                v = o["data"][mime]
                v = "".join(v) if isinstance(v, list) else v
                out.append((ext, base64.b64decode(v) if ext == "png" else v.encode()))
    return out


def empty(ext: str, data: bytes) -> str | None:
    """Why the image is empty, or None when it shows something."""
    if not data:
        return "no bytes"
    if ext == "svg":
        return None if b"<path" in data else "an SVG without paths"
    import matplotlib.image as mpimg  # decodes PNG (matplotlib is in requirements.txt)
    try:
        px = mpimg.imread(io.BytesIO(data), format="png")
    except Exception as e:  # noqa: BLE001: any decoding failure is an empty image
        return f"does not decode as PNG ({e})"
    if px.size == 0:
        return "no pixels"
    flat = px.reshape(-1, px.shape[-1]) if px.ndim == 3 else px.reshape(-1, 1)
    if (flat == flat[0]).all():
        return f"one colour over {px.shape[1]}x{px.shape[0]} pixels"
    return None


def check(nb: dict, save: str | None = None) -> list[str]:
    """The problems found: one line per failing figure cell or image."""
    cells = figure_cells(nb)
    if not cells:
        return ["no figure cells (a code cell with plt. or .plot)"]
    problems = []
    for i in cells:
        imgs = images(nb["cells"][i])
        if not imgs:
            problems.append(f"cell {i}: a figure cell without an image output "
                            "(executed under MPLBACKEND=Agg, or it drew nothing)")
        for j, (ext, data) in enumerate(imgs):
            if why := empty(ext, data):
                problems.append(f"cell {i}, image {j}: empty: {why}")
            if save:
                os.makedirs(save, exist_ok=True)
                with open(os.path.join(save, f"cell{i}-{j}.{ext}"), "wb") as f:
                    f.write(data)
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebook", help="an executed .ipynb")
    ap.add_argument("--save", metavar="DIR", help="write each figure's image here")
    args = ap.parse_args(argv)
    with open(args.notebook) as f:
        nb = json.load(f)
    problems = check(nb, args.save)
    for p in problems:
        print(f"{args.notebook}: {p}", file=sys.stderr)
    if problems:
        return 1
    n = len(figure_cells(nb))
    print(f"{args.notebook}: {n} figure cells, each with a non-empty image")
    return 0


if __name__ == "__main__":
    sys.exit(main())
