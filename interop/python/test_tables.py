"""pandas, polars and DuckDB read every table gpureplay writes, in every
format, with the types docs/tables.md documents and the same values."""

import math
import os
import re

import duckdb
import pyarrow as pa
import pytest

import gpureplay_tables as gt
from conftest import ROOT

RUNS = ("sample", "hotspot", "hostsync")
FORMATS = ("parquet", "arrow", "csv")
EXT = {"parquet": ".parquet", "arrow": ".arrow", "csv": ".csv"}

PANDAS = {pa.int64(): "Int64", pa.int32(): "Int32", pa.float64(): "Float64", pa.string(): "string"}
POLARS = {pa.int64(): "Int64", pa.int32(): "Int32", pa.float64(): "Float64", pa.string(): "String"}


def test_schema_is_the_documented_one():
    """Every column of SCHEMA is named in docs/tables.md under its table."""
    doc = open(os.path.join(ROOT, "docs", "tables.md")).read()
    sections = dict(re.findall(r"^## (\w+) .*?\n(.*?)(?=^## |\Z)", doc, re.S | re.M))
    for table, cols in gt.SCHEMA.items():
        text = doc if table == "summary" else sections[table]
        for name, _, _ in cols[3:]:
            assert re.search(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", text), f"{table}.{name} not in docs/tables.md"


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("fmt", ("parquet", "arrow"))
@pytest.mark.parametrize("table", gt.TABLES)
def test_files_carry_the_documented_types(outs, run, fmt, table):
    """The files' own schema is the documented one: fails when a column's
    type, name, order or nullability changes."""
    path = os.path.join(outs[(run, fmt)], table + EXT[fmt])
    if fmt == "parquet":
        import pyarrow.parquet as pq
        got = pq.read_schema(path)
    else:
        import pyarrow.ipc as ipc
        with pa.memory_map(path) as src:
            got = ipc.open_file(src).schema
    want = gt.schema(table)
    assert [(f.name, f.type, f.nullable) for f in got] == [(f.name, f.type, f.nullable) for f in want]


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("table", gt.TABLES)
def test_pandas_and_polars_types(outs, run, fmt, table):
    """Integers stay integers (nullable ones too), strings are strings,
    never object, in pandas; polars has the same types."""
    out = outs[(run, fmt)]
    pdf = gt.read(out, table, fmt)
    assert {c: str(t) for c, t in pdf.dtypes.items()} == {n: PANDAS[t] for n, t, _ in gt.SCHEMA[table]}
    pldf = gt.read(out, table, fmt, lib="polars")
    assert {c: str(t) for c, t in pldf.schema.items()} == {n: POLARS[t] for n, t, _ in gt.SCHEMA[table]}
    assert len(pdf) == pldf.height


def duck(path, table, fmt):
    """What DuckDB reads from a file, as sorted rows."""
    if fmt == "csv":
        types = {"int64": "BIGINT", "int32": "INTEGER", "double": "DOUBLE", "string": "VARCHAR"}
        cols = ", ".join(f"'{n}': '{types[str(t)]}'" for n, t, _ in gt.SCHEMA[table])
        rel = duckdb.sql(f"SELECT * FROM read_csv('{path}', header=true, columns={{{cols}}})")
    elif fmt == "arrow":
        with pa.memory_map(path) as src:
            import pyarrow.ipc as ipc
            arrow_table = ipc.open_file(src).read_all()
        rel = duckdb.sql("SELECT * FROM arrow_table")
    else:
        rel = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    return sorted(rel.fetchall(), key=repr)


def norm(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("table", gt.TABLES)
def test_values_match_duckdb(outs, run, fmt, table):
    """pandas and polars hold the rows and values DuckDB reads from the same
    file (CSV: an empty params is null to DuckDB, the empty string here)."""
    out = outs[(run, fmt)]
    want = duck(os.path.join(out, table + EXT[fmt]), table, fmt)
    pdf = gt.read(out, table, fmt)
    pandas_rows = sorted((tuple(norm(None if v is pd_na() else v) for v in row)
                          for row in pdf.astype(object).itertuples(index=False, name=None)), key=repr)
    polars_rows = sorted(gt.read(out, table, fmt, lib="polars").rows(), key=repr)
    if fmt == "csv":
        want = sorted((tuple("" if (col[0] == "params" and v is None) else v for col, v in zip(gt.SCHEMA[table], r)) for r in want), key=repr)
    assert len(want) == len(pandas_rows) == len(polars_rows)
    assert pandas_rows == [tuple(norm(v) for v in r) for r in want]
    assert [tuple(norm(v) for v in r) for r in polars_rows] == [tuple(norm(v) for v in r) for r in want]


def pd_na():
    import pandas as pd
    return pd.NA


def test_rows_are_there(outs):
    """The runs exercise every table: no check passes on empty files."""
    for table in gt.TABLES:
        n = sum(len(gt.read(outs[(run, "parquet")], table)) for run in RUNS)
        assert n > 0, table


def test_params_group_by_value(outs):
    """A sweep's params split into typed columns and group."""
    summary = gt.split_params(gt.read(outs[("sample", "parquet")], "summary"))
    assert str(summary["launch.threshold"].dtype) == "Int64"
    by = summary.groupby(["policy", "launch.threshold"]).makespan_cycles.min()
    assert len(by) == 6  # 3 policies x 2 thresholds


def test_params_polars(outs):
    """split_params takes a polars frame too (the README's lib="polars"),
    with the same keys, types and values as pandas."""
    import polars as pl
    d = outs[("sample", "parquet")]
    summary = gt.split_params(gt.read(d, "summary", lib="polars"))
    assert summary["launch.threshold"].dtype == pl.Int64
    by = summary.group_by(["policy", "launch.threshold"]).agg(pl.col("makespan_cycles").min())
    assert by.height == 6  # 3 policies x 2 thresholds
    pandas = gt.split_params(gt.read(d, "summary"))
    assert summary["launch.threshold"].to_list() == pandas["launch.threshold"].tolist()
    mixed = gt.split_params(pl.DataFrame({"params": ["a=1,b=x,c=0.5", "a=2,b=y,c=2", "", None]}))
    assert [mixed[c].dtype for c in ("a", "b", "c")] == [pl.Int64, pl.String, pl.Float64]
    assert mixed["a"].to_list() == [1, 2, None, None] and mixed["b"].to_list() == ["x", "y", None, None]


def test_study_dataset(study):
    """The hive dataset reads in pandas (the directory) and polars (a glob),
    with policy and shard from the partitions, as DuckDB reads it."""
    import pandas as pd
    import polars as pl
    glob = os.path.join(study, "summary", "**", "*.parquet")
    want = duckdb.sql(f"SELECT count(*), count(DISTINCT policy), count(DISTINCT params) FROM read_parquet('{glob}', hive_partitioning=true)").fetchall()[0]
    assert want == (4, 2, 2)
    raw = pd.read_parquet(os.path.join(study, "summary"), partitioning=None)
    assert len(raw) == 4 and set(raw.policy.astype(str)) == {"cdp", "dtbl"}
    lazy = pl.scan_parquet(glob, hive_partitioning=True).collect()
    assert lazy.height == 4 and set(lazy["policy"]) == {"cdp", "dtbl"}
    s = gt.split_params(gt.read_dataset(study, "summary"))
    assert str(s["shard"].dtype) == "Int64" and str(s["gpu.sms"].dtype) == "Int64"
    assert s.groupby(["policy", "gpu.sms"]).makespan_cycles.min().size == 4
    ctas = gt.read_dataset(study, "ctas", lib="polars")
    n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{os.path.join(study, 'ctas', '**', '*.parquet')}', hive_partitioning=true)").fetchall()[0][0]
    assert ctas.height == n


@pytest.mark.parametrize("run", ["hotspot", "hostsync"])
@pytest.mark.parametrize("writer", ["duckdb-v1", "duckdb-v2", "pyarrow"])
def test_report_reads_tables_other_tools_rewrote(outs, replay, tmp_path, writer, run):
    """Tables rewritten by DuckDB (COPY ... FORMAT parquet, both Parquet
    versions: v2 brings data pages v2 and DELTA_LENGTH_BYTE_ARRAY strings)
    or by pyarrow (dictionary-encoded integers, snappy) still load into
    `replay report`, which reads them with the replay's own Parquet reader."""
    import subprocess
    import pyarrow.parquet as pq

    src = outs[(run, "parquet")]
    for table in gt.TABLES:
        f = os.path.join(src, table + ".parquet")
        dst = str(tmp_path / (table + ".parquet"))
        if writer == "pyarrow":
            pq.write_table(pq.read_table(f), dst)
        else:
            version = "V2" if writer == "duckdb-v2" else "V1"
            duckdb.sql(f"COPY (SELECT * FROM '{f}') TO '{dst}' (FORMAT parquet, PARQUET_VERSION {version})")
    out = str(tmp_path / "report.html")
    subprocess.run([replay, "report", str(tmp_path), "-o", out], check=True, stdout=subprocess.DEVNULL)
    assert os.path.getsize(out) > 0
    if run == "hostsync":
        assert "host waited on the GPU" in open(out).read()
