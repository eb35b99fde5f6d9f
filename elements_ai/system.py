"""The machine a run is on: its memory, and sizes and counts written for people.

>>> format_bytes(2.1e10), format_bytes(6.74e12), format_bytes(1.64e79), format_bytes(2.37e6)
('21 GB', '6,740 GB', '1.6 × 10^70 GB', '2.37 MB')
"""

from __future__ import annotations

import math
import os

__all__ = ["format_bytes", "format_count", "machine_memory"]


def machine_memory() -> tuple[int, int]:
    """This machine's total and available memory in bytes (available: MemAvailable
    from ``/proc/meminfo`` where there is one, else the total)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    available = total
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return total, available


def format_count(x: float) -> str:
    """A count for people: digits grouped up to a billion, then a power of ten (the
    estimates of full games run to 10^131, where ``1.73e+131`` is hard to read and its
    third digit is noise)."""
    if not math.isfinite(x):
        return "more than 10^308" if x > 0 else str(x)
    if abs(x) < 1e9:
        return f"{x:,.0f}" if abs(x) >= 100 or x == int(x) else f"{x:.3g}"
    exponent = math.floor(math.log10(abs(x)))
    mantissa = x / 10.0**exponent
    if round(mantissa, 1) >= 10:  # 9.97e12 rounds to 10.0
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.2g} × 10^{exponent}"


def format_bytes(nbytes: float) -> str:
    """Bytes in GB, the unit machines are sold in, so that a need compares at a glance
    with the memory the same message reports (MB and kB below a GB)."""
    for unit, size in (("kB", 1e3), ("MB", 1e6)):
        if abs(nbytes) < 1000 * size:
            return f"{nbytes / size:.3g} {unit}" if abs(nbytes) >= size else f"{nbytes:.0f} bytes"
    gb = nbytes / 1e9
    return f"{gb:.3g} GB" if abs(gb) < 1000 else f"{format_count(gb)} GB"
