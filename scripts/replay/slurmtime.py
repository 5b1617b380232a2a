"""Slurm's time strings, as src/libbudget/config/time_string.h reads them.

parse_duration("15") == 900 (a plain number is minutes), "M:S", "H:M:S",
"D-H", "D-H:M", "D-H:M:S". Fields are not range-checked, as in Slurm.
format_hms() writes what parse_duration() reads back exactly.
"""

import re

_DAYS = re.compile(r"^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$")
_CLOCK = re.compile(r"^(\d+)(?::(\d+))?(?::(\d+))?$")


def parse_duration(text):
    """Seconds of a Slurm duration; ValueError naming the text otherwise."""
    t = text.strip()
    m = _DAYS.match(t)
    if m:
        d, h, mi, s = (int(x) if x else 0 for x in m.groups())
        return ((d * 24 + h) * 60 + mi) * 60 + s
    m = _CLOCK.match(t)
    if m:
        parts = [int(x) for x in m.groups() if x is not None]
        if len(parts) == 1:
            return parts[0] * 60
        if len(parts) == 2:
            return parts[0] * 60 + parts[1]
        return (parts[0] * 60 + parts[1]) * 60 + parts[2]
    raise ValueError('invalid time "%s" (expected M, M:S, H:M:S, D-H, D-H:M or D-H:M:S)' % text)


def format_hms(seconds):
    """'H:MM:SS', or 'D-HH:MM:SS' from a day up (seconds >= 0)."""
    seconds = int(seconds)
    if seconds < 0:
        raise ValueError("negative duration %d" % seconds)
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    if d:
        return "%d-%02d:%02d:%02d" % (d, h, m, s)
    return "%d:%02d:%02d" % (h, m, s)


def format_min_runtime(seconds):
    """`sbatch --min-runtime` text for whole seconds: 'M:S' below an hour
    (a plain number would be minutes), else 'H:M:S'."""
    seconds = int(seconds)
    if seconds < 3600:
        return "%d:%02d" % divmod(seconds, 60)
    return format_hms(seconds)
