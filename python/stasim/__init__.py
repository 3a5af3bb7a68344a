"""stasim: cycle-approximate simulator of scratchpad-based tensor accelerators (MoE decode study).

run() and compare() return the documents `stasim run --json` and `stasim compare --json` write, sweep() the rows
of `stasim sweep`, kernel() and Kernel the documents of `stasim kernel --json`. Bad input raises ValueError with
the CLI's message, a failed simulation RuntimeError. The compiled part is stasim._stasim (pybind11); the configs
are found as the CLI finds them ($STASIM_DATA_DIR first), else the ones this package ships (stasim/data).
"""
from stasim._stasim import HbmSlice, HbmTensor, Kernel, Tile, TileView, __version__, compare, kernel, run, sweep

__all__ = ["HbmSlice", "HbmTensor", "Kernel", "Tile", "TileView", "__version__", "compare", "kernel", "run", "sweep"]
