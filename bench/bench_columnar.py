"""ColumnarValues over gRPC and REST, 1,000,000 stored single heaps a call, client to client, each beside
its target (issue 31: 10M values/s on both transports)."""

from __future__ import annotations

import numpy as np

from bench.bench_service import STORED, columnar_grpc, columnar_rest, stored_database
from bench.common import figure, running_server

#: Values per second a columnar call of a million stored heaps must reach on each transport.
TARGET = 10_000_000


def main() -> None:
    with stored_database() as url, running_server(url) as server:
        million = np.random.default_rng(7).integers(0, STORED, 1_000_000, dtype=np.uint64)
        for name, measure, where in (
            ("ColumnarValues gRPC", columnar_grpc, server.target),
            ("POST /v1/values:columnar", columnar_rest, server.base),
        ):
            rate = measure(where, million)
            figure(f"{name}, 1,000,000 stored heaps a call, 5 calls", rate, "values/s")
            figure(f"  ... target >= {TARGET:,}: rate / target", rate / TARGET, "x")


if __name__ == "__main__":
    main()
