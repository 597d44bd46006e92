"""Cost of secret redaction per trace line (it runs on every line written).

    python benchmarks/bench_redact.py
"""

from __future__ import annotations

import os
import timeit

from longview.kernel.models.secrets import redact

LINE = '{"seq":1,"session_id":"s","type":"assistant_turn","data":{"text":"' + "hello world " * 50 + '"}}'


def per_call_us(n: int = 50_000) -> float:
    return timeit.timeit(lambda: redact(LINE), number=n) / n * 1e6


if __name__ == "__main__":
    os.environ.pop("OPENAI_API_KEY", None)
    print(f"no secret set:        {per_call_us():.2f} us/line")
    os.environ["OPENAI_API_KEY"] = "sk-bench-0123456789abcdef"
    print(f"one provider key set: {per_call_us():.2f} us/line")
