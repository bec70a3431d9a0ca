"""Read gpureplay's tables into pandas or polars with their documented types.

    import gpureplay_tables as gt
    kernels = gt.read("out", "kernels")                 # pandas, any format in out/
    kernels = gt.read("out", "kernels", lib="polars")   # polars
    summary = gt.read_dataset("study-out", "summary")   # a study's hive dataset
    summary = gt.split_params(summary)                  # params -> typed columns

Why a module and not one-liners: `pd.read_parquet` turns the nullable
integer columns (kernels.parent_kernel_id, ctas.group_id, ...) into
floats; a CSV carries no types at all (an all-empty `params` column reads
back as integers); and a sweep's `params` ("gpu.sms=8,launch.threshold=64")
needs splitting before it can be grouped by value. Here every format goes
through pyarrow with the schema docs/tables.md documents (SCHEMA), so
integers stay integers, nulls stay nulls, strings are strings, and pandas
and polars see the same types. Pure Python over pyarrow; nothing else.
"""

from __future__ import annotations

import glob
import os

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.dataset as pads
import pyarrow.ipc as paipc
import pyarrow.parquet as pq

I64, I32, F64, STR = pa.int64(), pa.int32(), pa.float64(), pa.string()

_KEYS = [("trace", STR, False), ("policy", STR, False), ("params", STR, False)]

# SCHEMA is docs/tables.md as Arrow: per table, (column, type, nullable).
SCHEMA: dict[str, list[tuple[str, pa.DataType, bool]]] = {
    "summary": _KEYS + [
        ("gpu", STR, False), ("makespan_cycles", I64, False), ("makespan_us", F64, False),
        ("speedup", F64, False), ("kernels", I64, False), ("device_kernels", I64, False),
        ("ctas", I64, False), ("launch_sites", I64, False), ("launched", I64, False),
        ("inlined", I64, False), ("coalesced", I64, False), ("avg_occupancy", F64, False),
        ("avg_kernel_wait_cycles", F64, False), ("stall_cycles", I64, False),
        ("busy_cycles", I64, False), ("issue_utilization", F64, True), ("dram_utilization", F64, True),
    ],
    "kernels": _KEYS + [
        ("kernel_id", I64, False), ("name", STR, False), ("origin", STR, False),
        ("parent_kernel_id", I64, True), ("stream", I64, False), ("ctas", I64, False),
        ("threads_per_cta", I64, False), ("launch_cycle", I64, False), ("ready_cycle", I64, False),
        ("start_cycle", I64, False), ("end_cycle", I64, False), ("wait_cycles", I64, False),
        ("coalesced_groups", I64, False),
    ],
    "ctas": _KEYS + [
        ("kernel_id", I64, False), ("cta", I64, False), ("sm", I32, False),
        ("dispatch_cycle", I64, False), ("start_cycle", I64, False), ("end_cycle", I64, False),
        ("stall_cycles", I64, False), ("group_id", I64, True), ("slowdown", F64, True),
    ],
    "launches": _KEYS + [
        ("site_id", I64, False), ("cycle", I64, False), ("parent_kernel_id", I64, False),
        ("parent_cta", I64, False), ("warp", I32, False), ("lane", I32, False),
        ("child_kernel_id", I64, False), ("workload", I64, False), ("decision", STR, False),
        ("target_kernel_id", I64, True), ("est_child_cycles", F64, True),
        ("est_parent_cycles", F64, True), ("spawn_n", I64, True), ("spawn_ncon", F64, True),
        ("outcome", STR, False),
    ],
    "occupancy": _KEYS + [
        ("cycle", I64, False), ("window_cycles", I64, False), ("sm", I32, False),
        ("active_warps", F64, False), ("active_ctas", F64, False),
    ],
    "pages": _KEYS + [
        ("page", I64, False), ("buffer", I64, False), ("event", STR, False),
        ("kernel_id", I64, True), ("cycle", I64, False),
    ],
    "stages": _KEYS + [
        ("stage", STR, False), ("start_cycle", I64, False), ("end_cycle", I64, False),
    ],
}

TABLES = list(SCHEMA)
_EXT = {"parquet": ".parquet", "arrow": ".arrow", "csv": ".csv"}


def schema(table: str) -> pa.Schema:
    """The documented Arrow schema of a table."""
    return pa.schema([pa.field(n, t, nullable) for n, t, nullable in SCHEMA[table]])


def read_arrow(out: str, table: str, fmt: str | None = None) -> pa.Table:
    """One table of `replay --out OUT` as an Arrow table with its documented
    schema. fmt is parquet, arrow or csv; by default whichever file exists."""
    if fmt is None:
        fmt = next((f for f, e in _EXT.items() if os.path.exists(os.path.join(out, table + e))), None)
        if fmt is None:
            raise FileNotFoundError(f"no {table}.parquet, .arrow or .csv in {out}")
    path = os.path.join(out, table + _EXT[fmt])
    sch = schema(table)
    if fmt == "parquet":
        t = pq.read_table(path)
    elif fmt == "arrow":
        with pa.memory_map(path) as src:
            t = paipc.open_file(src).read_all()
    else:
        t = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(
            column_types=sch, strings_can_be_null=False, null_values=[""],
            quoted_strings_can_be_null=False, include_columns=sch.names))
    return t.cast(sch)


def read_dataset_arrow(out: str, table: str) -> pa.Table:
    """One table of a study's hive-partitioned dataset (OUT/<table>/policy=
    .../shard=.../part-*.parquet) with its documented schema, policy from the
    partition and shard as an int64 column."""
    files = sorted(glob.glob(os.path.join(out, table, "**", "*.parquet"), recursive=True))
    part = pa.schema([("policy", STR), ("shard", I64)])
    ds = pads.dataset(files, format="parquet", partitioning=pads.partitioning(part, flavor="hive"),
                      partition_base_dir=os.path.join(out, table))
    t = ds.to_table()
    cols = [n for n, _, _ in SCHEMA[table]] + ["shard"]
    return t.select(cols).cast(pa.schema(list(schema(table)) + [pa.field("shard", I64, False)]))


def _pandas(t: pa.Table):
    import pandas as pd
    mapping = {I64: pd.Int64Dtype(), I32: pd.Int32Dtype(), F64: pd.Float64Dtype(), STR: pd.StringDtype()}
    return t.to_pandas(types_mapper=mapping.get)


def _frame(t: pa.Table, lib: str):
    if lib == "pandas":
        return _pandas(t)
    if lib == "polars":
        import polars as pl
        return pl.from_arrow(t)
    raise ValueError(f"lib={lib!r}: want pandas or polars")


def read(out: str, table: str, fmt: str | None = None, lib: str = "pandas"):
    """One table of `replay --out OUT` as a pandas (nullable dtypes: Int64,
    Int32, Float64, string) or polars DataFrame."""
    return _frame(read_arrow(out, table, fmt), lib)


def read_dataset(out: str, table: str, lib: str = "pandas"):
    """One table of a study's dataset as a pandas or polars DataFrame."""
    return _frame(read_dataset_arrow(out, table), lib)


def split_params(df):
    """The `params` column ("k1=v1,k2=v2", empty without a sweep) split into
    one column per key, integer where every value is one, else float where
    every value is a number, else string: a pandas DataFrame (nullable
    Int64, Float64, string) or a polars DataFrame (Int64, Float64, String),
    whichever it is given."""
    if type(df).__module__.split(".")[0] == "polars":
        return _split_params_polars(df)
    import pandas as pd
    keys = sorted({kv.split("=", 1)[0] for p in df["params"].dropna() for kv in str(p).split(",") if kv})
    out = df.copy()
    for k in keys:
        vals = df["params"].map(lambda p, k=k: dict(kv.split("=", 1) for kv in str(p).split(",") if kv).get(k))
        num = pd.to_numeric(vals, errors="coerce")
        out[k] = num.convert_dtypes() if num.notna().sum() == vals.notna().sum() else vals.astype("string")
    return out


def _split_params_polars(df):
    """split_params for polars: the same keys and the same typing rule, in
    polars' own types (a polars Series has no pandas methods: dropna, map)."""
    import polars as pl
    parsed = [dict(kv.split("=", 1) for kv in (p or "").split(",") if kv) for p in df["params"].to_list()]
    keys = sorted({k for d in parsed for k in d})
    cols = []
    for k in keys:
        vals = pl.Series(k, [d.get(k) for d in parsed], dtype=pl.String)
        for dtype in (pl.Int64, pl.Float64):
            typed = vals.cast(dtype, strict=False)
            if typed.null_count() == vals.null_count():
                vals = typed
                break
        cols.append(vals)
    return df.with_columns(cols)
