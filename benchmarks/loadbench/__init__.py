"""The parts of ``benchmarks/load.py``, the server load benchmark (its docstring says
what it measures)."""
