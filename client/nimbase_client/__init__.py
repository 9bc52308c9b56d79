"""nimbase-client: the thin Python client of the nimbase tablebase service.

    from nimbase_client import NimbaseClient

    with NimbaseClient("localhost:50051") as client:
        client.get_value("nim", "3 5 7")  # {"game": "nim", ..., "outcome": "N", "grundy": 1, ...}

`NimbaseClient` and `AsyncNimbaseClient` speak gRPC (TLS, retries of the read calls), `RestClient` and
`AsyncRestClient` REST; all four answer the typed records of `nimbase_client.records` and raise
`NimbaseClientError`. The generated gRPC modules are `nimbase_client.v1`. It needs only grpcio,
protobuf and httpx.
"""

from nimbase_client import records
from nimbase_client.channel import MAX_MESSAGE_BYTES
from nimbase_client.client import AsyncNimbaseClient, NimbaseClient
from nimbase_client.errors import NimbaseClientError
from nimbase_client.rest import AsyncRestClient, RestClient

__version__ = "0.1.0"

__all__ = [
    "MAX_MESSAGE_BYTES",
    "AsyncNimbaseClient",
    "AsyncRestClient",
    "NimbaseClient",
    "NimbaseClientError",
    "RestClient",
    "__version__",
    "records",
]
