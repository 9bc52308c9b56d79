"""Run by test_standalone_client with the python of a virtualenv holding only the client package:
asks a live server through each of the four clients and prints what it got as JSON.

    python standalone_script.py GRPC_TARGET HTTP_BASE_URL [ROOT_CERT_PEM]
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from nimbase_client import AsyncNimbaseClient, AsyncRestClient, NimbaseClient, NimbaseClientError, RestClient

SERVER_ONLY = (
    "pydantic",
    "numpy",
    "numba",
    "psycopg",
    "sqlalchemy",
    "fastapi",
    "nimbase",
    "service",
    "engine",
)


def main() -> None:
    target, base_url = sys.argv[1], sys.argv[2]
    root = Path(sys.argv[3]).read_bytes() if len(sys.argv) > 3 else None
    out: dict[str, Any] = {}
    with NimbaseClient(target, root_certificates=root) as client:
        out["sync"] = client.get_value("nim", "3 5 7")
        out["best_move"] = client.best_move("nim", "3 5 7", limit=1)["best_move"]
        out["p_position"] = client.is_p_position("nim", "1 2 3")["p_position"]
        out["sequence"] = client.get_sequence("nim", 0, 5)["values"]
        out["games"] = [game["id"] for game in client.list_games()["games"]]
        try:
            client.get_value("nim", "x")
        except NimbaseClientError as error:
            out["error"] = error.code

    async def asynchronous() -> None:
        async with AsyncNimbaseClient(target, root_certificates=root) as client:
            out["async"] = await client.get_value("nim", "3 5 7")
            out["async_stream"] = [v async for v in client.stream_values([("nim", "1 2"), ("nim", "1 2 3")])]
        async with AsyncRestClient(base_url, root_certificates=root) as rest:
            out["async_rest"] = await rest.get_value("nim", "3 5 7")

    asyncio.run(asynchronous())
    with RestClient(base_url, root_certificates=root) as rest:
        out["rest"] = rest.get_value("nim", "3 5 7")
        try:
            rest.get_value("no-such-game", "1")
        except NimbaseClientError as error:
            out["rest_error"] = error.code
    out["imported"] = sorted({name.split(".")[0] for name in sys.modules} & set(SERVER_ONLY))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
