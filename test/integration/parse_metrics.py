#!/usr/bin/python3
"""Parses metrics text on stdin with python3-prometheus-client's parsers
and prints one line per sample, "name{label=value,...} value", sorted.

  parse_metrics.py              the Prometheus text format (0.0.4)
  parse_metrics.py --openmetrics  OpenMetrics 1.0 (the strict parser: it
                                  refuses a text without "# EOF", a counter
                                  sample without _total, a bad escape)

Exits 1 with the parser's message on a text it refuses. Debian's package
installs the module for /usr/bin/python3, hence the interpreter line.
"""
import math
import sys

if len(sys.argv) > 1 and sys.argv[1] == "--openmetrics":
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
else:
    from prometheus_client.parser import text_string_to_metric_families

def number(v):
    """3600 for 3600.0, else Python's shortest repr (0.7, inf, nan)."""
    return str(int(v)) if math.isfinite(v) and v == int(v) else repr(v)


try:
    lines = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            lines.append(f"{s.name}{{{labels}}} {number(s.value)} {family.type}")
except Exception as e:  # the parser's own exception types vary by version
    print(f"parse_metrics: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
print("\n".join(sorted(lines)))
