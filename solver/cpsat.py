"""OR-Tools' CP-SAT module, imported without pandas.

``ortools.sat.python.cp_model`` imports pandas at its top (about half a second, a fifth of a
photo's whole ``kakuro solve``) only for its helpers that build variables over a ``pd.Index``,
which this project never calls. While it is imported, a stand-in answers for pandas with the two
names it needs for its annotations; the stand-in is dropped at once, so that whoever imports
pandas later gets the real one. Where pandas is loaded already, or a later OR-Tools needs more of
it at import, the module is imported as it is.
"""
from __future__ import annotations

import importlib
import sys
import threading
import types

_lock = threading.Lock()
_NAME = "ortools.sat.python.cp_model"


def cp_model() -> types.ModuleType:
    """``ortools.sat.python.cp_model``, imported once."""
    module = sys.modules.get(_NAME)
    if module is not None:
        return module
    with _lock:
        if _NAME in sys.modules or "pandas" in sys.modules:
            return importlib.import_module(_NAME)
        stand_in = types.ModuleType("pandas", "stand-in while OR-Tools' cp_model is imported")
        stand_in.Index = type("Index", (), {})
        stand_in.Series = type("Series", (), {})
        sys.modules["pandas"] = stand_in
        try:
            return importlib.import_module(_NAME)
        except (AttributeError, ImportError):
            sys.modules.pop(_NAME, None)  # needs more of pandas than the stand-in has
        finally:
            if sys.modules.get("pandas") is stand_in:
                del sys.modules["pandas"]
        return importlib.import_module(_NAME)
