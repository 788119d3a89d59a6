"""``ilkit.scan``: the corpus scan of ``ilkit scan --json`` from Python."""

import json
import os

from ._native import scan_json


def scan(paths, jobs=0, analyses="all", dataframe=None):
    """Scans files and folders (``.ll``, ``.ptx``, binary IL, clang JSON ASTs; folders
    recursively) in parallel and returns one record per file, in input order: the
    fields of ``ilkit scan --json`` (``file``, ``kind``, ``functions``, ``blocks``,
    ``loops``, ``sccs``, ``refsccs``, ... ``error``, ``notes``).

    ``jobs``: worker threads (0: one per core). ``analyses``: a comma-separated list of
    ``cfg``, ``callgraph``, ``cgscc``, ``il`` or ``all``. ``dataframe``: ``True`` for a
    pandas DataFrame, ``False`` for a list of dicts; ``None`` (the default) gives a
    DataFrame when pandas is installed.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    records = [json.loads(line) for line in scan_json([os.fspath(p) for p in paths], jobs, analyses)]
    if dataframe is None:
        try:
            import pandas  # noqa: F401
        except ImportError:
            dataframe = False
        else:
            dataframe = True
    if not dataframe:
        return records
    import pandas

    return pandas.DataFrame.from_records(records)
